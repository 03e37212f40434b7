package api_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/rs/zerolog"
	"github.com/wakewheel/wakewheel/api"
	ob "github.com/wakewheel/wakewheel/obligations"
)

// laneFake answers lanes with many lanes (an answer long enough to be sent
// chunked) and holds waits until their request ends.
type laneFake struct {
	instantPosts
	lanes   int
	waiting chan struct{}
}

func (f *laneFake) Lanes(context.Context) ([]ob.LaneStatus, error) {
	out := make([]ob.LaneStatus, f.lanes)
	for i := range out {
		out[i].Lane = fmt.Sprintf("lane-%04d", i)
	}
	return out, nil
}

func (f *laneFake) Wait(ctx context.Context, _, _, _ string, _ time.Duration) (ob.Digest, bool, error) {
	f.waiting <- struct{}{}
	<-ctx.Done()
	return ob.Digest{}, false, ctx.Err()
}

func serveFake(t *testing.T, sock string, f *laneFake) *api.Server {
	t.Helper()
	srv := api.NewServer(nil, nil, api.Info{Version: "test"}, zerolog.Nop())
	api.RegisterObligations(srv, f)
	ready := make(chan error, 1)
	go func() { ready <- srv.Serve(sock) }()
	c := api.NewClient(sock)
	for i := 0; ; i++ {
		if _, err := c.Lanes(context.Background()); err == nil {
			return srv
		} else if i > 1000 {
			t.Fatal(err)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

var retryDelays = api.PostRetryDelays

// fakeSocket is a socket path in a directory of its own, short enough for
// a unix socket.
func fakeSocket(tb testing.TB) string {
	dir, err := os.MkdirTemp("", "ww")
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { os.RemoveAll(dir) })
	return filepath.Join(dir, "s.sock")
}

// A client keeps its connections (and its post streams) across requests;
// when the daemon behind them restarted, the next request goes out on a
// new connection instead of failing (nothing of it had been answered).
func TestClientOutlivesADaemonRestart(t *testing.T) {
	sock := fakeSocket(t)
	f := &laneFake{lanes: 200, waiting: make(chan struct{}, 1)}
	srv := serveFake(t, sock, f)
	c := api.NewClient(sock)
	ctx := context.Background()
	post := api.PostRequest{Lane: "dev", Class: "human", Body: "b"}
	for range 3 {
		lanes, err := c.Lanes(ctx) // ~6 KB: a chunked answer
		if err != nil || len(lanes) != 200 || lanes[199].Lane != "lane-0199" {
			t.Fatalf("lanes: %d %v", len(lanes), err)
		}
		if _, err := c.Post(ctx, post); err != nil {
			t.Fatalf("post: %v", err)
		}
	}
	srv.Shutdown(ctx)
	srv = serveFake(t, sock, f)
	defer srv.Shutdown(ctx)
	if lanes, err := c.Lanes(ctx); err != nil || len(lanes) != 200 {
		t.Fatalf("lanes after the restart: %d %v", len(lanes), err)
	}
	api.PostRetryDelays = nil // the stale stream must be retried at once, not by Post's own retries
	t.Cleanup(func() { api.PostRetryDelays = retryDelays })
	res, err := c.Post(ctx, post)
	if err != nil || res.Obligation.Seq != 4 {
		t.Fatalf("post after the restart: %+v %v", res, err)
	}
	srv.Shutdown(ctx)
	if _, err := c.Lanes(ctx); !errors.Is(err, api.ErrDaemonDown) {
		t.Fatalf("lanes with no daemon: %v, want ErrDaemonDown", err)
	}
}

// Cancelling a request's context ends it at once, on the client's side,
// however long the daemon would take.
func TestClientCancelEndsARequest(t *testing.T) {
	sock := fakeSocket(t)
	f := &laneFake{waiting: make(chan struct{}, 1)}
	srv := serveFake(t, sock, f)
	defer srv.Shutdown(context.Background())
	c := api.NewClient(sock)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := c.WaitOnce(ctx, "dev", "", "", 20*time.Second)
		done <- err
	}()
	<-f.waiting // the daemon holds the request
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("cancelled wait: %v, want context.Canceled", err)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("a cancelled request did not end")
	}
	if _, err := c.Lanes(context.Background()); err != nil {
		t.Fatalf("the next request: %v", err)
	}
}
