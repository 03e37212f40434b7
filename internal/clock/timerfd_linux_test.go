package clock

import (
	"testing"
	"time"
)

// The loop re-arms its timer on every turn to the same deadline, counted
// from a fresh now: those re-arms make no system call.
func TestPollTimerUnchangedInstantMakesNoSyscall(t *testing.T) {
	var p Polled
	defer p.Close()
	tm, ok := p.NewTimer(time.Hour).(*pollTimer)
	if !ok {
		t.Fatal("Polled made no timerfd timer on Linux")
	}
	next := time.Now().Add(time.Minute)
	tm.Reset(time.Until(next))
	tm.mu.Lock()
	before := tm.tfd.sets
	tm.mu.Unlock()
	const turns = 1000
	for range turns {
		tm.Reset(time.Until(next))
	}
	tm.mu.Lock()
	sets := tm.tfd.sets - before
	tm.mu.Unlock()
	// An instant moves to the next grain only when two clock reads straddle
	// a boundary (or the goroutine is descheduled between them).
	if sets > turns/10 {
		t.Fatalf("%d settime calls for %d re-arms to one deadline", sets, turns)
	}
	t.Logf("%d settime calls for %d re-arms to one deadline", sets, turns)
}

// Close releases the descriptor and its reader; a closed timer is inert.
func TestPollTimerClose(t *testing.T) {
	var p Polled
	tm := p.NewTimer(time.Millisecond)
	p.Close()
	tm.Reset(time.Millisecond)
	if tm.Stop() {
		t.Fatal("Stop of a closed timer returned true")
	}
	p.Close() // twice is fine
}
