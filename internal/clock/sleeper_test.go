package clock

import (
	"runtime"
	"testing"
	"time"
)

// sleeperKinds are the sleepers the contract tests run against: one on the
// runtime's timers and, on Linux, the poller's.
func sleeperKinds(t *testing.T) map[string]func() Sleeper {
	kinds := map[string]func() Sleeper{"runtime": func() Sleeper { return NewSleeper(Real{}) }}
	if p := timerfdPolled(t, "sleeper"); p != nil {
		kinds["timerfd"] = p.NewSleeper
	}
	return kinds
}

// waited runs s.Wait and reports how long it took, failing after a
// generous bound.
func waited(t *testing.T, s Sleeper) time.Duration {
	t.Helper()
	done := make(chan time.Duration, 1)
	go func() {
		start := time.Now()
		s.Wait()
		done <- time.Since(start)
	}()
	select {
	case d := <-done:
		return d
	case <-time.After(10 * time.Second):
		t.Fatal("Wait did not return within 10s")
		return 0
	}
}

func TestSleeperWaitsForItsInstant(t *testing.T) {
	for name, newSleeper := range sleeperKinds(t) {
		t.Run(name, func(t *testing.T) {
			s := newSleeper()
			const d = 20 * time.Millisecond
			start := time.Now()
			s.Reset(d)
			waited(t, s)
			if el := time.Since(start); el < d {
				t.Fatalf("Wait returned after %v, want at least %v", el, d)
			}
			s.Reset(0)
			if el := waited(t, s); el > time.Second {
				t.Fatalf("Wait after Reset(0) took %v", el)
			}
		})
	}
}

// A Wake from another goroutine ends a Wait with no instant armed, and a
// Wake before the Wait ends the next one.
func TestSleeperWake(t *testing.T) {
	for name, newSleeper := range sleeperKinds(t) {
		t.Run(name, func(t *testing.T) {
			s := newSleeper()
			s.Reset(time.Hour)
			s.Stop()
			go func() {
				time.Sleep(20 * time.Millisecond)
				s.Wake()
			}()
			if el := waited(t, s); el < 10*time.Millisecond {
				t.Fatalf("Wait returned after %v, before the Wake", el)
			}
			s.Reset(time.Hour)
			s.Wake()
			s.Wake() // two before a Wait are one
			waited(t, s)
			// The timer is still armed for its hour: a Wait now returns only
			// on a Wake.
			returned := make(chan struct{})
			go func() {
				s.Wait()
				close(returned)
			}()
			select {
			case <-returned:
				t.Fatal("Wait returned with no Wake and an hour armed")
			case <-time.After(50 * time.Millisecond):
			}
			s.Wake()
			select {
			case <-returned:
			case <-time.After(10 * time.Second):
				t.Fatal("Wake did not end the Wait")
			}
		})
	}
}

// Many wakers and one owner: every Wake is seen by a Wait that returns
// after it, so an owner that waits until it has seen n wakes never hangs.
func TestSleeperNoLostWake(t *testing.T) {
	for name, newSleeper := range sleeperKinds(t) {
		t.Run(name, func(t *testing.T) {
			s := newSleeper()
			const n = 2000
			sent := make(chan int, n)
			for w := range 4 {
				go func() {
					for i := range n / 4 {
						sent <- w*n + i
						s.Wake()
						if i%50 == 0 {
							time.Sleep(100 * time.Microsecond) // let the owner park
						}
					}
				}()
			}
			seen := make(chan struct{})
			go func() { // the owner
				for got := 0; got < n; {
					select {
					case <-sent:
						got++
					default:
						s.Wait()
					}
				}
				close(seen)
			}()
			select {
			case <-seen:
			case <-time.After(20 * time.Second):
				t.Fatal("the owner still waits after every send: a Wake was lost")
			}
		})
	}
}

// The loop resets its sleeper on every turn to the same deadline, counted
// from a fresh now: those resets make no system call.
func TestPollSleeperUnchangedInstantMakesNoSyscall(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the poller sleeper is a Linux timerfd")
	}
	var p Polled
	defer p.Close()
	s, ok := p.NewSleeper().(*pollSleeper)
	if !ok {
		t.Fatal("Polled made no timerfd sleeper on Linux")
	}
	next := time.Now().Add(time.Minute)
	s.Reset(time.Until(next))
	before := s.tfd.sets
	const turns = 1000
	for range turns {
		s.Reset(time.Until(next))
	}
	if sets := s.tfd.sets - before; sets > turns/10 {
		t.Fatalf("%d settime calls for %d resets to one deadline", sets, turns)
	}
}
