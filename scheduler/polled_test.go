package scheduler_test

import (
	"context"
	"testing"
	"time"

	"github.com/wakewheel/wakewheel/internal/clock"
	"github.com/wakewheel/wakewheel/scheduler"
)

// On the daemon's loop clock the loop sleeps in the poller itself
// (clock.Polled's sleeper): a request arriving while it sleeps toward a
// deadline an hour out is served at once, a deadline still fires at its
// instant and not before, and Stop ends a sleeping loop.
func TestRunnerOnPolledClock(t *testing.T) {
	clk := &clock.Polled{}
	defer clk.Close()
	fired := make(chan time.Duration, 1)
	r, _ := startRunner(t, clk, func(e *scheduler.Engine) {
		e.Register("note", func(_ context.Context, f scheduler.Firing) scheduler.Outcome {
			fired <- time.Since(f.Deadline.At)
			return scheduler.Succeeded()
		})
	})
	push(t, r, "later", "note", time.Now().Add(time.Hour))
	for range 100 {
		time.Sleep(200 * time.Microsecond) // the loop goes back to sleep
		start := time.Now()
		settle(t, r)
		if el := time.Since(start); el > 2*time.Second {
			t.Fatalf("a request to a sleeping loop took %v", el)
		}
	}
	push(t, r, "soon", "note", time.Now().Add(20*time.Millisecond))
	select {
	case late := <-fired:
		if late < 0 {
			t.Fatalf("fired %v early", -late)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the deadline did not fire")
	}
	stopped := make(chan struct{})
	go func() {
		r.Stop()
		close(stopped)
	}()
	select {
	case <-stopped:
	case <-time.After(10 * time.Second):
		t.Fatal("Stop did not end the sleeping loop")
	}
	if err := r.Do(context.Background(), func(*scheduler.Engine, time.Time) {}); err != scheduler.ErrStopped {
		t.Fatalf("Do after Stop: %v, want ErrStopped", err)
	}
}
