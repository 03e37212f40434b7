package scheduler_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/wakewheel/wakewheel/internal/clock"
	"github.com/wakewheel/wakewheel/internal/enginetest"
	"github.com/wakewheel/wakewheel/scheduler"
)

// armClock is a fake clock that remembers the instant its timers were
// last armed for.
type armClock struct {
	*clock.Fake
	mu   sync.Mutex
	last time.Time
}

type armTimer struct {
	clock.Timer
	c *armClock
}

func (c *armClock) NewTimer(d time.Duration) clock.Timer {
	return armTimer{c.Fake.NewTimer(d), c}
}

func (t armTimer) Reset(d time.Duration) {
	t.c.mu.Lock()
	t.c.last = t.c.Now().Add(d)
	t.c.mu.Unlock()
	t.Timer.Reset(d)
}

// armed is the instant the loop armed its timer for last, once the loop
// has armed it since every request before: the loop takes a request only
// after arming, so the second of two requests is taken after an arm that
// followed the first.
func (c *armClock) armed(t *testing.T, r *scheduler.Runner) time.Duration {
	t.Helper()
	settle(t, r)
	settle(t, r)
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.last.Sub(epoch)
}

// The runner arms its timer for the engine's Wake: two deadlines in the
// tick (5 ms, 6 ms] share one wake at the tick's end with a slack of a
// tick, and a deadline alone in its tick wakes it at its own instant.
func TestRunnerCoalescesTheDeadlinesOfATick(t *testing.T) {
	clk := &armClock{Fake: clock.NewFake(epoch)}
	_, eng := enginetest.Mem(t, scheduler.Options{Tick: time.Millisecond, Slack: time.Millisecond}, clk.Now())
	type fire struct {
		key string
		at  time.Duration
	}
	fired := make(chan fire, 3)
	eng.Register("note", func(_ context.Context, f scheduler.Firing) scheduler.Outcome {
		fired <- fire{f.Deadline.Key, f.Now.Sub(epoch)}
		return scheduler.Succeeded()
	})
	r := scheduler.Start(eng, clk)
	t.Cleanup(r.Stop)
	want := func(key string, at time.Duration) {
		t.Helper()
		select {
		case f := <-fired:
			if f != (fire{key, at}) {
				t.Fatalf("fired %s at %v, want %s at %v", f.key, f.at, key, at)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("%s did not fire", key)
		}
	}
	us := time.Microsecond
	push(t, r, "a", "note", epoch.Add(5300*us))
	if at := clk.armed(t, r); at != 5300*us {
		t.Fatalf("armed for %v with a alone, want its own 5.3ms", at)
	}
	push(t, r, "b", "note", epoch.Add(5700*us))
	push(t, r, "c", "note", epoch.Add(8200*us)) // alone in (8 ms, 9 ms]
	if at := clk.armed(t, r); at != 6*time.Millisecond {
		t.Fatalf("armed for %v with a and b in one tick, want its end, 6ms", at)
	}
	clk.Set(epoch.Add(6 * time.Millisecond))
	want("a", 6*time.Millisecond)
	want("b", 6*time.Millisecond)
	if at := clk.armed(t, r); at != 8200*us {
		t.Fatalf("armed for %v with c alone, want its own 8.2ms", at)
	}
	clk.Set(epoch.Add(8200 * us))
	want("c", 8200*us)
}
