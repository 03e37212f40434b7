package scheduler

import (
	"sync/atomic"
	"time"

	"github.com/wakewheel/wakewheel/internal/clock"
)

const (
	// shortWait is the last stretch before a due time that the runner
	// sleeps precisely under the real clock.
	shortWait = 2 * time.Millisecond
	// maxSleepers bounds the goroutines in a precise sleep at once (each
	// holds a thread), should the due time keep moving earlier: beyond it
	// the runtime's timer serves, up to a millisecond late.
	maxSleepers = 4
)

// waker wakes the runner's loop at the engine's Next. With a fake clock it
// is the clock's timer. With the real clock the runtime's timers are not
// enough: an idle Go process waits for its next timer in the netpoller,
// whose timeout is whole milliseconds (a timer 0.3 ms away fires ~1 ms
// after it was set, one 1.3 ms away ~2 ms after), which would make a
// reminder that the wheel fires at its instant up to a millisecond late.
// So the real clock's timer only brings the loop to within shortWait of
// the due time, and the rest is slept by a goroutine in the kernel's
// nanosecond sleep (sleepUntil), one for each due time the loop waits for.
type waker struct {
	clk      clock.Clock
	timer    clock.Timer
	precise  bool
	at       time.Time      // the due time the sleeping goroutine wakes for
	c        chan time.Time // its channel, nil when none sleeps for the loop
	sleeping atomic.Int32   // goroutines in sleepUntil
}

func newWaker(clk clock.Clock) *waker {
	t := clk.NewTimer(time.Hour)
	t.Stop()
	_, real := clk.(clock.Real)
	return &waker{clk: clk, timer: t, precise: real && canSleepPrecisely}
}

// arm returns the channel that receives at next; d is next less now.
func (w *waker) arm(next time.Time, d time.Duration) <-chan time.Time {
	if !w.precise || d <= 0 {
		w.c = nil
		w.timer.Reset(max(d, 0))
		return w.timer.C()
	}
	if d > shortWait {
		w.c = nil
		w.timer.Reset(d - shortWait)
		return w.timer.C()
	}
	if w.c != nil && w.at.Equal(next) {
		return w.c
	}
	if w.sleeping.Load() >= maxSleepers {
		w.c = nil
		w.timer.Reset(d)
		return w.timer.C()
	}
	w.timer.Stop()
	// A goroutine already sleeping for another due time sends on its own
	// channel, which nobody reads any more: it ends within shortWait.
	c := make(chan time.Time, 1)
	w.sleeping.Add(1)
	go func() {
		defer w.sleeping.Add(-1)
		c <- sleepUntil(w.clk, next)
	}()
	w.at, w.c = next, c
	return c
}

// woke is called when the loop received from arm's channel: a goroutine's
// channel delivers once.
func (w *waker) woke() { w.c = nil }

// idle stops the timer: nothing is pending.
func (w *waker) idle() {
	w.timer.Stop()
	w.c = nil
}
