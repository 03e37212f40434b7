package clock

import (
	"runtime"
	"testing"
	"time"
)

// timerKinds are the timers the contract tests run against: the runtime's
// and, on Linux, the poller's.
func timerKinds(t *testing.T) map[string]func(d time.Duration) Timer {
	kinds := map[string]func(d time.Duration) Timer{"runtime": Real{}.NewTimer}
	if p := timerfdPolled(t, "timer"); p != nil {
		kinds["timerfd"] = p.NewTimer
	}
	return kinds
}

// timerfdPolled is the Polled clock of the contract tests on Linux, where
// what it makes (a timer, a sleeper) must be a timerfd; nil elsewhere.
func timerfdPolled(t *testing.T, what string) *Polled {
	if runtime.GOOS != "linux" {
		return nil
	}
	p := &Polled{Made: func(kind string, err error) {
		if kind != "timerfd" {
			t.Fatalf("Polled made a %s %s on Linux: %v", kind, what, err)
		}
	}}
	t.Cleanup(p.Close)
	return p
}

// recv waits for a value on tm, failing after a generous bound.
func recv(t *testing.T, tm Timer) time.Time {
	t.Helper()
	select {
	case v := <-tm.C():
		return v
	case <-time.After(10 * time.Second):
		t.Fatal("timer did not fire within 10s")
		return time.Time{}
	}
}

// quiet fails if tm sends a value within wait.
func quiet(t *testing.T, tm Timer, wait time.Duration) {
	t.Helper()
	select {
	case v := <-tm.C():
		t.Fatalf("stale value received: %v", v)
	case <-time.After(wait):
	}
}

func TestTimerFiresAfterNotBefore(t *testing.T) {
	for name, newTimer := range timerKinds(t) {
		t.Run(name, func(t *testing.T) {
			const d = 20 * time.Millisecond
			start := time.Now()
			tm := newTimer(d)
			v := recv(t, tm)
			if el := time.Since(start); el < d {
				t.Fatalf("fired after %v, want at least %v", el, d)
			}
			if v.Sub(start) < d {
				t.Fatalf("value %v after the start, want at least %v", v.Sub(start), d)
			}
			quiet(t, tm, 30*time.Millisecond) // one value, not two
		})
	}
}

func TestTimerResetEarlierAndLater(t *testing.T) {
	for name, newTimer := range timerKinds(t) {
		t.Run(name, func(t *testing.T) {
			tm := newTimer(time.Hour)
			start := time.Now()
			tm.Reset(10 * time.Millisecond)
			recv(t, tm)
			if el := time.Since(start); el < 10*time.Millisecond {
				t.Fatalf("reset earlier: fired after %v", el)
			}
			tm.Reset(10 * time.Millisecond)
			start = time.Now()
			tm.Reset(150 * time.Millisecond)
			recv(t, tm)
			if el := time.Since(start); el < 150*time.Millisecond {
				t.Fatalf("reset later: fired after %v, the earlier instant still armed", el)
			}
		})
	}
}

func TestTimerStopThenNoValue(t *testing.T) {
	for name, newTimer := range timerKinds(t) {
		t.Run(name, func(t *testing.T) {
			tm := newTimer(5 * time.Millisecond)
			if !tm.Stop() {
				t.Fatal("Stop of an armed timer returned false")
			}
			quiet(t, tm, 50*time.Millisecond)
			if tm.Stop() {
				t.Fatal("a second Stop returned true")
			}
			// Fired and not received: Stop drops the value.
			tm.Reset(time.Millisecond)
			time.Sleep(30 * time.Millisecond)
			tm.Stop()
			quiet(t, tm, 30*time.Millisecond)
		})
	}
}

func TestTimerResetAfterFireGivesNoStaleValue(t *testing.T) {
	for name, newTimer := range timerKinds(t) {
		t.Run(name, func(t *testing.T) {
			tm := newTimer(time.Millisecond)
			time.Sleep(30 * time.Millisecond) // fired, not received
			tm.Reset(time.Hour)
			quiet(t, tm, 50*time.Millisecond)
			start := time.Now()
			tm.Reset(time.Millisecond)
			recv(t, tm)
			if el := time.Since(start); el < time.Millisecond {
				t.Fatalf("fired %v after the Reset, want at least 1ms", el)
			}
			tm.Reset(0)
			recv(t, tm) // zero fires at once
		})
	}
}

// Re-arms around the instant of expiry: an expiration that belongs to an
// earlier arm never reaches the channel after a Reset.
func TestTimerManyResets(t *testing.T) {
	for name, newTimer := range timerKinds(t) {
		t.Run(name, func(t *testing.T) {
			tm := newTimer(time.Hour)
			for i := range 500 {
				tm.Reset(time.Duration(i%7) * 20 * time.Microsecond)
				if i%3 == 0 {
					time.Sleep(time.Duration(i%5) * 30 * time.Microsecond)
				}
				if i%2 == 0 {
					tm.Reset(time.Hour)
				} else {
					tm.Stop()
				}
				select {
				case v := <-tm.C():
					t.Fatalf("turn %d: stale value %v after a Reset or Stop", i, v)
				default:
				}
			}
			quiet(t, tm, 30*time.Millisecond)
			start := time.Now()
			tm.Reset(5 * time.Millisecond)
			recv(t, tm)
			if el := time.Since(start); el < 5*time.Millisecond {
				t.Fatalf("fired %v after the last Reset, want at least 5ms", el)
			}
			quiet(t, tm, 30*time.Millisecond)
		})
	}
}
