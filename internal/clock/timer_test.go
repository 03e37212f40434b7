package clock

import (
	"testing"
	"time"
)

// The Timer contract (clock.go) on the runtime's timers, which Real and
// Polled hand out: the go line of go.mod (1.23 or later) is what gives
// them no stale value after a Reset or Stop.

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
	const d = 20 * time.Millisecond
	start := time.Now()
	tm := Real{}.NewTimer(d)
	v := recv(t, tm)
	if el := time.Since(start); el < d {
		t.Fatalf("fired after %v, want at least %v", el, d)
	}
	if v.Sub(start) < d {
		t.Fatalf("value %v after the start, want at least %v", v.Sub(start), d)
	}
	quiet(t, tm, 30*time.Millisecond) // one value, not two
}

func TestTimerResetEarlierAndLater(t *testing.T) {
	tm := Real{}.NewTimer(time.Hour)
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
}

func TestTimerStopThenNoValue(t *testing.T) {
	tm := Real{}.NewTimer(5 * time.Millisecond)
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
}

func TestTimerResetAfterFireGivesNoStaleValue(t *testing.T) {
	tm := Real{}.NewTimer(time.Millisecond)
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
}
