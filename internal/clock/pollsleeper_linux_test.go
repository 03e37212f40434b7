package clock

import (
	"fmt"
	"os"
	"strings"
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

// The sleeper's timer is an absolute one on the wall clock, whose instant
// the kernel keeps through a host's sleep and a step of the clock
// (timerfd_linux.go): the descriptor's fdinfo says which clock and flags
// it was armed with, and how far its instant is.
func TestPollSleeperArmsTheWallClock(t *testing.T) {
	s := pollSleeperOf(t, timerfdPolled(t))
	s.Reset(time.Minute)
	b, err := os.ReadFile(fmt.Sprintf("/proc/self/fdinfo/%d", s.tfd.fd))
	if err != nil {
		t.Skipf("no fdinfo to read: %v", err)
	}
	info := string(b)
	for _, want := range []string{"clockid: 0\n", "settime flags: 01\n"} { // CLOCK_REALTIME, TFD_TIMER_ABSTIME
		if !strings.Contains(info, want) {
			t.Fatalf("timerfd fdinfo lacks %q:\n%s", strings.TrimSpace(want), info)
		}
	}
	var sec, nsec int64
	if i := strings.Index(info, "it_value: ("); i < 0 {
		t.Fatalf("no it_value in\n%s", info)
	} else if _, err := fmt.Sscanf(info[i:], "it_value: (%d, %d)", &sec, &nsec); err != nil {
		t.Fatal(err)
	}
	if left := time.Duration(sec)*time.Second + time.Duration(nsec); left <= 50*time.Second || left > time.Minute {
		t.Fatalf("armed for a minute, the kernel has %v left", left)
	}
}
