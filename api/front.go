package api

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"sync/atomic"
	"time"

	"github.com/rs/zerolog"
)

// The socket's front. A daemon binds its socket before it loads its
// deadlines, so a restart with a million of them is not a daemon that
// seems down for seconds: while the load runs, the Front answers
//
//   - GET /v1/status with 200 and state "loading", how far the load has
//     come (Status.Loading: a percent and the deadlines read), and the
//     daemon's pid, store and socket;
//   - every other request with 503 and code "loading" ("the daemon is
//     loading its deadlines (N%): retry in a moment"), exit status 75
//     (EX_TEMPFAIL, like "stopping") and a Retry-After header. Nothing of
//     such a request is applied or stored, so nothing it carried can be
//     lost: a post refused while loading was never acknowledged. The Go
//     client (Client.Do) waits through a load by itself, up to LoadingWait.
//
// Once the daemon has loaded and every route is registered, Ready hands
// every later request to the Server. A status that answers is liveness
// (the process is alive and making progress); state "ready" is readiness.
type Front struct {
	info     Info
	progress func() LoadState
	log      zerolog.Logger
	srv      atomic.Pointer[Server]
	http     *http.Server
	served   chan error
}

// Status states.
const (
	StateLoading = "loading"
	StateReady   = "ready"
)

// LoadingWait bounds how long the client waits for a loading daemon before
// it gives up with the daemon's "loading" answer: a restart of a million
// deadlines loads in 1–3 s on a small machine, 30 s leaves room for a slow
// disk and a loaded box without hiding a daemon that never gets ready.
const LoadingWait = 30 * time.Second

// loadingRetry is the client's pause between two tries while the daemon
// loads, and the Retry-After the daemon sends (rounded up to a second).
const loadingRetry = 50 * time.Millisecond

// errLoading is the sentinel of a request answered while loading.
var errLoading = errors.New("api: the daemon is loading")

// ListenFront binds the unix socket at path (ListenUnix's rules) and starts
// answering on it as the loading front. progress is read by every status
// while loading; it must be safe to call from any goroutine.
func ListenFront(path string, info Info, progress func() LoadState, log zerolog.Logger) (*Front, error) {
	ln, err := ListenUnix(path)
	if err != nil {
		return nil, err
	}
	f := &Front{info: info, progress: progress, log: log, served: make(chan error, 1)}
	f.http = newHTTPServer(f, log)
	go func() {
		err := f.http.Serve(ln)
		if errors.Is(err, http.ErrServerClosed) {
			err = nil
		}
		f.served <- err
	}()
	return f, nil
}

// Ready hands every request from now on to s, whose routes must all be
// registered.
func (f *Front) Ready(s *Server) { f.srv.Store(s) }

// Served yields the serve loop's end: nil after Shutdown, else the error
// that stopped it.
func (f *Front) Served() <-chan error { return f.served }

// Shutdown stops accepting, wakes the Server's long polls (Server.Shutdown)
// and waits for the requests in flight.
func (f *Front) Shutdown(ctx context.Context) error {
	s := f.srv.Load()
	if s == nil {
		return f.http.Shutdown(ctx)
	}
	s.stop()
	return s.shutdownFrom(ctx, f.http)
}

// ServeHTTP answers as the loading front until Ready, then as the Server.
func (f *Front) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if s := f.srv.Load(); s != nil {
		s.mux.ServeHTTP(w, r)
		return
	}
	ls := f.progress()
	if r.Method == http.MethodGet && r.URL.Path == "/v1/status" {
		_ = writeJSON(w, http.StatusOK, Status{Version: f.info.Version, PID: os.Getpid(), Started: f.info.Started,
			StoreDir: f.info.StoreDir, Socket: f.info.Socket, State: StateLoading, Loading: &ls,
			Outcomes: map[string]uint64{}, ByKind: map[string]int{}})
		return
	}
	w.Header().Set("Retry-After", "1")
	f.fail(w, loadingError(ls))
}

func (f *Front) fail(w http.ResponseWriter, err error) {
	status, code, msg, _ := answer(err)
	writeError(w, status, code, msg)
}

// loadingError is the answer to a request that came while loading.
func loadingError(ls LoadState) error {
	return apiError{errLoading, fmt.Sprintf("the daemon is loading its deadlines (%d%%, %d read): retry in a moment, "+
		"or watch `wakewheel status` until it says ready", ls.Percent, ls.Read)}
}

// isLoading reports whether err is a daemon's "loading" answer.
func isLoading(err error) bool {
	if err == nil {
		return false
	}
	var e *Error
	return errors.As(err, &e) && e.Err.Code == "loading"
}

// throughLoading runs send, and again every loadingRetry while the daemon
// answers "loading", for at most bound or until ctx ends. A request
// answered "loading" was not applied, so sending it again is safe. When
// ctx ends first, the caller gets the daemon's last "loading" answer, which
// says more than the deadline does.
func throughLoading(ctx context.Context, bound time.Duration, send func() error) error {
	err := send()
	if !isLoading(err) {
		return err
	}
	giveUp := time.Now().Add(bound)
	for time.Now().Before(giveUp) {
		t := time.NewTimer(loadingRetry)
		select {
		case <-ctx.Done():
			t.Stop()
			return err
		case <-t.C:
		}
		next := send()
		if ctx.Err() != nil && !isLoading(next) && next != nil {
			return err // cut short by the caller's deadline
		}
		if err = next; !isLoading(err) {
			return err
		}
	}
	return err
}

// WithLoadingWait returns a client like c (sharing its connections) that
// waits at most d through a loading daemon instead of LoadingWait; 0 does
// not wait. For callers that must not be held, such as an agent's hook.
func (c *Client) WithLoadingWait(d time.Duration) *Client {
	cp := *c
	cp.loadingWait = &d
	return &cp
}

func (c *Client) loadingBound() time.Duration {
	if c.loadingWait != nil {
		return *c.loadingWait
	}
	return LoadingWait
}
