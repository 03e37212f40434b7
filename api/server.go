package api

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/rs/zerolog"
	"github.com/wakewheel/wakewheel"
	"github.com/wakewheel/wakewheel/deadlines"
	"github.com/wakewheel/wakewheel/internal/filetrust"
	"github.com/wakewheel/wakewheel/scheduler"
)

// Limits of one request.
const (
	MaxRequestBytes = 1 << 20 // 1 MiB: the largest legitimate body is a posted message
	RequestTimeout  = 30 * time.Second
)

// Records is what the server reads from the store.
type Records interface {
	Alerts(limit int) ([]wakewheel.Alert, error)
	Fires(afterSeq uint64, limit int) ([]wakewheel.Fire, error)
	LastFires(limit int) ([]wakewheel.Fire, error)
	// AppendDeadlinePage is up to limit persisted deadlines whose key
	// starts with prefix and sorts after the cursor after, in key order,
	// from one consistent snapshot, without the engine's loop, written into
	// dst[:0]; more says whether others follow.
	AppendDeadlinePage(dst []deadlines.Deadline, prefix, after string, limit int) (_ []deadlines.Deadline, more bool, _ error)
	// VisitDeadlinePage reads the same page and hands fn each deadline as
	// it is read: key and kind are the stored bytes, valid only during
	// the call.
	VisitDeadlinePage(prefix, after string, limit int, fn func(key, kind []byte, at, since time.Time)) (more bool, _ error)
	Sync() error
}

// Info describes the daemon for status.
type Info struct {
	Version  string
	StoreDir string
	Socket   string
	Started  time.Time
}

// Server serves the API over a unix socket.
type Server struct {
	runner   *scheduler.Runner
	records  Records
	info     Info
	log      zerolog.Logger
	mux      *http.ServeMux
	http     *http.Server
	listings *listingGate
	streams  streamSet // connections switched to the post stream
	// OnRequest, when set, is called for every request (traffic). It must
	// not block and its failure never fails the request.
	OnRequest func(verb string)
	// stopping ends when Shutdown begins: long polls answer at once.
	stopping context.Context
	stop     context.CancelFunc
}

// NewServer returns a server over runner and records.
func NewServer(runner *scheduler.Runner, records Records, info Info, log zerolog.Logger) *Server {
	s := &Server{runner: runner, records: records, info: info, log: log, mux: http.NewServeMux(), listings: newListingGate()}
	s.stopping, s.stop = context.WithCancel(context.Background())
	s.http = newHTTPServer(s.mux, log)
	s.HandleListing("GET /v1/status", "status", s.status)
	s.HandleListing("GET /v1/deadlines", "deadlines", s.deadlines)
	s.route("POST /v1/reminders", "remind", s.remind)
	s.route("DELETE /v1/reminders/{name}", "remind", s.cancelReminder)
	s.route("GET /v1/alerts", "alerts", s.alerts)
	s.HandleListing("GET /v1/fires", "fires", s.fires)
	s.route("GET /v1/debug/timer", "status", s.timerProbe)
	s.mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		s.fail(w, apiError{errNotFound, fmt.Sprintf("no route %s %s; see `wakewheel --help`", r.Method, r.URL.Path)})
	})
	return s
}

// newHTTPServer serves h under the socket's limits and peer check.
func newHTTPServer(h http.Handler, log zerolog.Logger) *http.Server {
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       RequestTimeout,
		MaxHeaderBytes:    64 << 10,
		ConnContext:       peerCheck(log),
	}
}

// Handle adds a route served under the same limits (for verbs that later
// packages add).
func (s *Server) Handle(pattern, verb string, h func(w http.ResponseWriter, r *http.Request) error) {
	s.route(pattern, verb, h)
}

func (s *Server) route(pattern, verb string, h func(w http.ResponseWriter, r *http.Request) error) {
	s.mux.HandleFunc(pattern, func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			if p := recover(); p != nil {
				status, code, msg := s.recovered(p, pattern)
				writeError(w, status, code, msg)
			}
		}()
		s.traffic(verb)
		r.Body = http.MaxBytesReader(w, r.Body, MaxRequestBytes)
		ctx, cancel := context.WithTimeout(r.Context(), RequestTimeout)
		defer cancel()
		if err := h(w, r.WithContext(ctx)); err != nil {
			s.fail(w, err)
		}
	})
}

// traffic reports the request to the traffic hook, fail-open.
func (s *Server) traffic(verb string) {
	if s.OnRequest == nil {
		return
	}
	defer func() {
		if p := recover(); p != nil {
			s.log.Error().Interface("panic", p).Str("verb", verb).Msg("traffic hook panicked; request continues")
		}
	}()
	s.OnRequest(verb)
}

// Serve listens on the unix socket at path and serves until Shutdown.
func (s *Server) Serve(path string) error {
	ln, err := ListenUnix(path)
	if err != nil {
		return err
	}
	err = s.http.Serve(ln)
	if errors.Is(err, http.ErrServerClosed) {
		return nil
	}
	return err
}

// Handler is the server's http.Handler (for in-process tests).
func (s *Server) Handler() http.Handler { return s.mux }

// Shutdown stops accepting and waits for requests in flight, the posts of
// post streams included. First it wakes every long poll (a waiting agent):
// each answers "stopping" at once, so shutdown is not held for the length
// of a wait.
func (s *Server) Shutdown(ctx context.Context) error {
	s.stop()
	return s.shutdownFrom(ctx, s.http)
}

// shutdownFrom shuts down hs, the HTTP server that serves s, then the post
// streams it handed over.
func (s *Server) shutdownFrom(ctx context.Context, hs *http.Server) error {
	err := hs.Shutdown(ctx)
	return errors.Join(err, s.streams.shutdown(ctx))
}

// untilStopping is ctx, ended also when Shutdown begins; stopped reports
// whether that is why it ended.
func (s *Server) untilStopping(ctx context.Context) (c context.Context, cancel context.CancelFunc, stopped func() bool) {
	c, cancelCause := context.WithCancelCause(ctx)
	release := context.AfterFunc(s.stopping, func() { cancelCause(errStopping) })
	return c, func() { release(); cancelCause(nil) }, func() bool { return context.Cause(c) == errStopping }
}

// ListenUnix creates the socket with mode 0600 in a private directory: a
// missing one is created 0700; one that is another user's, or that group or
// others can write to, is refused (another user could rename the socket and
// bind their own). A stale socket left by a dead daemon is replaced; a live
// one is an error.
func ListenUnix(path string) (net.Listener, error) {
	if err := filetrust.PrivateDir(filepath.Dir(path)); err != nil {
		return nil, fmt.Errorf("api: socket directory: %w", err)
	}
	if _, err := os.Stat(path); err == nil {
		if c, err := net.DialTimeout("unix", path, time.Second); err == nil {
			c.Close()
			return nil, fmt.Errorf("api: another daemon is serving on %s", path)
		}
		if err := os.Remove(path); err != nil {
			return nil, fmt.Errorf("api: remove stale socket: %w", err)
		}
	}
	old := umask(0o177)
	ln, err := net.Listen("unix", path)
	umask(old)
	if err != nil {
		return nil, fmt.Errorf("api: listen on %s: %w", path, err)
	}
	if err := os.Chmod(path, 0o600); err != nil {
		ln.Close()
		return nil, fmt.Errorf("api: chmod socket: %w", err)
	}
	return ln, nil
}

func writeJSON(w http.ResponseWriter, status int, v any) error {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	return json.NewEncoder(w).Encode(v)
}

// writeBody writes an answer already encoded as JSON, with its length (no
// chunked encoding).
func writeBody(w http.ResponseWriter, status int, b []byte) error {
	h := w.Header()
	h["Content-Type"] = jsonContentType
	h["Content-Length"] = []string{strconv.Itoa(len(b))}
	w.WriteHeader(status)
	_, err := w.Write(b)
	return err
}

var jsonContentType = []string{"application/json"}

func writeError(w http.ResponseWriter, status int, code, msg string) {
	_ = writeBody(w, status, appendError(nil, code, msg))
}

// appendError appends an error answer as writeJSON writes it (with its
// newline).
func appendError(b []byte, code, msg string) []byte {
	var e Error
	e.Err.Code, e.Err.Message = code, msg
	j, _ := json.Marshal(e) // two strings: it always marshals
	return append(append(b, j...), '\n')
}

// buffers holds the request and answer buffers of the hot routes.
var buffers = sync.Pool{New: func() any { b := make([]byte, 0, 1024); return &b }}

// maxPooled bounds the buffers kept for reuse (a 1 MiB post's is dropped).
const maxPooled = 64 << 10

func getBuffer() *[]byte { return buffers.Get().(*[]byte) }

func putBuffer(b *[]byte) {
	if cap(*b) <= maxPooled {
		*b = (*b)[:0]
		buffers.Put(b)
	}
}

// readBody appends the request's body to b (within MaxRequestBytes: a
// longer one fails with *http.MaxBytesError).
func readBody(r *http.Request, b []byte) ([]byte, error) {
	for {
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
		n, err := r.Body.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			var mbe *http.MaxBytesError
			if errors.As(err, &mbe) {
				return b, err
			}
			return b, badf("malformed JSON body: %v", err)
		}
	}
}

// decode reads one JSON object into v, rejecting unknown fields and
// trailing data with a message that says what was wrong.
func decode(r *http.Request, v any) error {
	buf := getBuffer()
	defer putBuffer(buf)
	b, err := readBody(r, *buf)
	*buf = b
	if err != nil {
		return err
	}
	return decodeJSON(b, v)
}

// decodeJSON is decode of a body already read.
func decodeJSON(b []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return badf("malformed JSON body: %v", err)
	}
	if dec.More() {
		return badf("malformed JSON body: more than one JSON value")
	}
	return nil
}

func queryInt(r *http.Request, name string, def, max int) (int, error) {
	v := r.URL.Query().Get(name)
	if v == "" {
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 || n > max {
		return 0, badf("query parameter %s=%q: want an integer 0..%d", name, v, max)
	}
	return n, nil
}

// seqPage reads the page of a sequence-numbered log a request asks for:
// after, the last sequence number it has seen (0: from the start), and
// limit, how many records at most (defLimit when absent, up to maxLimit).
func seqPage(r *http.Request, defLimit, maxLimit int) (after uint64, limit int, err error) {
	a, err := queryInt(r, "after", 0, 1<<62)
	if err != nil {
		return 0, 0, err
	}
	if limit, err = queryInt(r, "limit", defLimit, maxLimit); err != nil {
		return 0, 0, err
	}
	return uint64(a), limit, nil
}

// queryBool reads a true/false query parameter (absent: false).
func queryBool(r *http.Request, name string) (bool, error) {
	switch v := r.URL.Query().Get(name); v {
	case "", "false":
		return false, nil
	case "true":
		return true, nil
	default:
		return false, badf("query parameter %s=%q: want true or false", name, v)
	}
}
