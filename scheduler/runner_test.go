package scheduler_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/wakewheel/wakewheel"
	"github.com/wakewheel/wakewheel/deadlines"
	"github.com/wakewheel/wakewheel/internal/clock"
	"github.com/wakewheel/wakewheel/internal/enginetest"
	"github.com/wakewheel/wakewheel/scheduler"
	"github.com/wakewheel/wakewheel/store"
)

func startRunner(t *testing.T, clk clock.Clock, register func(e *scheduler.Engine)) (*scheduler.Runner, *store.DB) {
	t.Helper()
	db, eng := enginetest.Mem(t, scheduler.Options{}, clk.Now())
	register(eng)
	r := scheduler.Start(eng, clk)
	t.Cleanup(r.Stop)
	return r, db
}

func push(t *testing.T, r *scheduler.Runner, key, kind string, at time.Time) {
	t.Helper()
	var err error
	if doErr := r.Do(context.Background(), func(e *scheduler.Engine, now time.Time) {
		_, err = e.Apply(now, deadlines.Mutation{Op: deadlines.OpPush, Key: key, Kind: kind, At: at})
	}); doErr != nil {
		t.Fatal(doErr)
	}
	if err != nil {
		t.Fatal(err)
	}
}

// settle waits until the loop has armed its timer for what is pending.
func settle(t *testing.T, r *scheduler.Runner) {
	t.Helper()
	if err := r.Do(context.Background(), func(*scheduler.Engine, time.Time) {}); err != nil {
		t.Fatal(err)
	}
}

func TestIdleRunnerSetsNoTimer(t *testing.T) {
	clk := clock.NewFake(epoch)
	fired := make(chan string, 1)
	r, _ := startRunner(t, clk, func(e *scheduler.Engine) {
		e.Register("note", func(_ context.Context, f scheduler.Firing) scheduler.Outcome {
			fired <- f.Deadline.Key
			return scheduler.Succeeded()
		})
	})
	settle(t, r)
	if n := clk.Timers(); n != 0 {
		t.Fatalf("idle runner armed %d timers, want 0 (no periodic wake-ups)", n)
	}
	push(t, r, "a", "note", epoch.Add(time.Hour))
	settle(t, r)
	if n := clk.Timers(); n != 1 {
		t.Fatalf("runner with one pending deadline armed %d timers, want 1", n)
	}
	clk.Advance(time.Hour - time.Millisecond)
	select {
	case k := <-fired:
		t.Fatalf("%s fired early", k)
	case <-time.After(20 * time.Millisecond):
	}
	clk.Advance(time.Millisecond)
	select {
	case k := <-fired:
		if k != "a" {
			t.Fatalf("fired %q, want a", k)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("deadline did not fire")
	}
	settle(t, r)
	settle(t, r) // the result has come back and the loop went idle again
	if n := clk.Timers(); n != 0 {
		t.Fatalf("runner armed %d timers after its last deadline fired, want 0", n)
	}
}

// A handler that errors or panics never fails a caller: concurrent callers
// keep getting answers while every run fails, and each failure is an alert.
func TestFailOpenHandlersNeverFailCallers(t *testing.T) {
	var runs sync.WaitGroup
	r, db := startRunner(t, clock.Real{}, func(e *scheduler.Engine) {
		e.Register("panics", func(context.Context, scheduler.Firing) scheduler.Outcome {
			defer runs.Done()
			panic("boom")
		})
		e.Register("errors", func(context.Context, scheduler.Firing) scheduler.Outcome {
			defer runs.Done()
			return scheduler.Failed(errors.New("exit status 1"))
		})
	})
	const n = 50
	runs.Add(2 * n)
	var callers sync.WaitGroup
	for i := range n {
		callers.Add(1)
		go func() {
			defer callers.Done()
			now := time.Now()
			push(t, r, fmt.Sprintf("p%d", i), "panics", now)
			push(t, r, fmt.Sprintf("e%d", i), "errors", now)
		}()
	}
	callers.Wait()
	runs.Wait()
	// A handler has returned before its worker hands the outcome to the
	// loop, which records the alert: wait for the loop to take them all.
	var alerts []wakewheel.Alert
	for deadline := time.Now().Add(30 * time.Second); ; {
		settle(t, r)
		var err error
		if alerts, err = db.Alerts(1000); err != nil {
			t.Fatal(err)
		}
		if len(alerts) >= 2*n || time.Now().After(deadline) {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	settle(t, r)
	if more, err := db.Alerts(1000); err != nil || len(more) != len(alerts) {
		t.Fatalf("alerts still arriving after the count settled: %d then %d (%v)", len(alerts), len(more), err)
	}
	if len(alerts) != 2*n {
		t.Fatalf("%d alerts recorded, want %d", len(alerts), 2*n)
	}
	for _, a := range alerts {
		if a.Code != "action_failed" {
			t.Fatalf("alert %+v, want action_failed", a)
		}
	}
}

// A key that falls due again while its action runs runs once more
// afterwards, never twice at once.
func TestKeyNeverRunsTwiceAtOnce(t *testing.T) {
	var mu sync.Mutex
	running, maxRunning, runs := 0, 0, 0
	release := make(chan struct{})
	started := make(chan struct{}, 10)
	r, _ := startRunner(t, clock.Real{}, func(e *scheduler.Engine) {
		e.Register("slow", func(context.Context, scheduler.Firing) scheduler.Outcome {
			mu.Lock()
			running++
			runs++
			maxRunning = max(maxRunning, running)
			mu.Unlock()
			started <- struct{}{}
			<-release
			mu.Lock()
			running--
			mu.Unlock()
			return scheduler.Succeeded()
		})
	})
	push(t, r, "k", "slow", time.Now())
	<-started
	for range 3 { // due again, three times, while the first run is going
		push(t, r, "k", "slow", time.Now())
		time.Sleep(5 * time.Millisecond)
	}
	release <- struct{}{}
	<-started
	release <- struct{}{}
	settle(t, r)
	time.Sleep(20 * time.Millisecond)
	mu.Lock()
	defer mu.Unlock()
	if maxRunning != 1 || runs != 2 {
		t.Fatalf("max concurrent runs %d, total runs %d; want 1 and 2", maxRunning, runs)
	}
}
