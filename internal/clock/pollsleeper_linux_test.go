package clock

import (
	"testing"
	"time"
)

// pollSleeperOf is a sleeper of p that must be a timerfd.
func pollSleeperOf(t *testing.T, p *Polled) *pollSleeper {
	t.Helper()
	s, ok := p.NewSleeper().(*pollSleeper)
	if !ok {
		t.Fatal("Polled made no timerfd sleeper on Linux")
	}
	return s
}

// The loop resets its sleeper on every turn to the same deadline, counted
// from a fresh now: those resets make no system call.
func TestPollSleeperUnchangedInstantMakesNoSyscall(t *testing.T) {
	s := pollSleeperOf(t, timerfdPolled(t))
	next := time.Now().Add(time.Minute)
	s.Reset(time.Until(next))
	before := s.tfd.sets
	const turns = 1000
	for range turns {
		s.Reset(time.Until(next))
	}
	// An instant moves to the next grain only when two clock reads straddle
	// a boundary (or the goroutine is descheduled between them).
	if sets := s.tfd.sets - before; sets > turns/10 {
		t.Fatalf("%d settime calls for %d resets to one deadline", sets, turns)
	}
}

// Stop disarms an armed timerfd once; a sleeper already disarmed makes no
// system call to stop again.
func TestPollSleeperStopDisarmsOnce(t *testing.T) {
	s := pollSleeperOf(t, timerfdPolled(t))
	s.Reset(time.Minute)
	before := s.tfd.sets
	s.Stop()
	s.Stop()
	s.Reset(0)
	if sets := s.tfd.sets - before; sets != 1 {
		t.Fatalf("%d settime calls for Stop, Stop, Reset(0) of an armed sleeper, want 1", sets)
	}
}

// Close releases the descriptor; a Wake after it does nothing, and a
// second Close is fine.
func TestPollSleeperClose(t *testing.T) {
	var p Polled
	s := pollSleeperOf(t, &p)
	p.Close()
	if err := s.tfd.rc.Read(func(uintptr) bool { return true }); err == nil {
		t.Fatal("the descriptor was read after Close")
	}
	s.Wake()
	p.Close()
}
