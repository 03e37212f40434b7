package api_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rs/zerolog"
	"github.com/syndtr/goleveldb/leveldb/storage"
	"github.com/wakewheel/wakewheel/api"
	"github.com/wakewheel/wakewheel/internal/clock"
	"github.com/wakewheel/wakewheel/scheduler"
	"github.com/wakewheel/wakewheel/store"
)

// While the daemon loads, its socket answers: status says loading and how
// far, any other request is refused with code "loading" (exit 75) and is
// not applied; a client call made during the load waits and succeeds once
// the front hands over to the server.
func TestFrontAnswersWhileLoadingThenServes(t *testing.T) {
	dir, err := os.MkdirTemp("", "ww")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	sock := filepath.Join(dir, "s.sock")
	var percent atomic.Int64
	front, err := api.ListenFront(sock, api.Info{Version: "test", Socket: sock}, func() api.LoadState {
		p := percent.Load()
		return api.LoadState{Percent: int(p), Read: p * 10}
	}, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { front.Shutdown(context.Background()) })
	c := api.NewClient(sock)
	ctx := context.Background()

	percent.Store(42)
	st, err := c.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.State != api.StateLoading || st.Loading == nil || st.Loading.Percent != 42 || st.Loading.Read != 420 || st.PID != os.Getpid() {
		t.Fatalf("status while loading: %+v (loading %+v)", st, st.Loading)
	}

	// A caller that does not wait gets the daemon's own answer.
	_, err = c.WithLoadingWait(0).Remind(ctx, api.ReminderRequest{Name: "early", In: "1h"})
	var ae *api.Error
	if !errors.As(err, &ae) || ae.Err.Code != "loading" || api.ExitCode(err) != api.ExitStopping {
		t.Fatalf("a reminder while loading: %v (exit %d), want code loading, exit %d", err, api.ExitCode(err), api.ExitStopping)
	}

	// A caller that can wait gets through once the load is done.
	done := make(chan error, 1)
	go func() {
		_, err := c.Remind(ctx, api.ReminderRequest{Name: "waited", In: "1h"})
		done <- err
	}()
	db, err := store.OpenStorage(storage.NewMemStorage(), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	eng, err := scheduler.NewEngine(db, scheduler.Options{Logger: zerolog.Nop()}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	eng.Register(api.ReminderKind, func(context.Context, scheduler.Firing) scheduler.Outcome { return scheduler.Succeeded() })
	runner := scheduler.Start(eng, clock.Real{})
	t.Cleanup(func() { runner.Stop(); db.Close() })
	front.Ready(api.NewServer(runner, db, api.Info{Version: "test", Socket: sock}, zerolog.Nop()))
	if err := <-done; err != nil {
		t.Fatalf("a reminder sent during the load, once ready: %v", err)
	}
	if st, err = c.Status(ctx); err != nil || st.State != api.StateReady || st.Pending != 1 {
		t.Fatalf("status once ready: %+v, %v; want ready with 1 pending (the early one was never applied)", st, err)
	}
}

// A client made WithLoadingWait(0) does not wait through a load: it gets
// the daemon's "loading" answer at once.
func TestClientWithoutLoadingWait(t *testing.T) {
	dir, err := os.MkdirTemp("", "ww")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	sock := filepath.Join(dir, "s.sock")
	front, err := api.ListenFront(sock, api.Info{Version: "test"}, func() api.LoadState { return api.LoadState{Percent: 7} }, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { front.Shutdown(context.Background()) })
	start := time.Now()
	_, err = api.NewClient(sock).WithLoadingWait(0).Remind(context.Background(), api.ReminderRequest{Name: "x", In: "1h"})
	var ae *api.Error
	if !errors.As(err, &ae) || ae.Err.Code != "loading" {
		t.Fatalf("got %v, want the loading answer", err)
	}
	if waited := time.Since(start); waited > 5*time.Second {
		t.Fatalf("waited %v: want the answer at once", waited)
	}
}
