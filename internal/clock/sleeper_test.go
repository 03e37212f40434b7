package clock

import (
	"runtime"
	"testing"
	"time"
)

// sleeperKinds are the sleepers the contract tests run against: one on the
// runtime's timers and, on Linux, the poller's.
func sleeperKinds(t testing.TB) map[string]func() Sleeper {
	kinds := map[string]func() Sleeper{"runtime": func() Sleeper { return NewSleeper(Real{}) }}
	if p := timerfdPolled(t); p != nil {
		kinds["timerfd"] = p.NewSleeper
	}
	return kinds
}

// timerfdPolled is the Polled clock of the contract tests on Linux, where
// its sleepers must be timerfds; nil elsewhere.
func timerfdPolled(t testing.TB) *Polled {
	if runtime.GOOS != "linux" {
		return nil
	}
	p := &Polled{Made: func(kind string, err error) {
		if kind != "timerfd" {
			t.Fatalf("Polled made a %s sleeper on Linux: %v", kind, err)
		}
	}}
	t.Cleanup(p.Close)
	return p
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

// blocks fails if s.Wait returns within wait, then ends it with a Wake.
func blocks(t *testing.T, s Sleeper, wait time.Duration) {
	t.Helper()
	returned := make(chan struct{})
	go func() {
		s.Wait()
		close(returned)
	}()
	select {
	case <-returned:
		t.Fatalf("Wait returned within %v with no Wake and nothing due", wait)
	case <-time.After(wait):
	}
	s.Wake()
	select {
	case <-returned:
	case <-time.After(10 * time.Second):
		t.Fatal("Wake did not end the Wait")
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
			blocks(t, s, 50*time.Millisecond) // the hour is still armed
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

// Re-arming moves the instant both ways: earlier than the one armed, and
// later, where the earlier one must not end the Wait.
func TestSleeperResetEarlierAndLater(t *testing.T) {
	for name, newSleeper := range sleeperKinds(t) {
		t.Run(name, func(t *testing.T) {
			s := newSleeper()
			s.Reset(time.Hour)
			start := time.Now()
			s.Reset(10 * time.Millisecond)
			waited(t, s)
			if el := time.Since(start); el < 10*time.Millisecond {
				t.Fatalf("reset earlier: Wait returned after %v", el)
			}
			start = time.Now()
			s.Reset(10 * time.Millisecond)
			s.Reset(150 * time.Millisecond)
			waited(t, s)
			if el := time.Since(start); el < 150*time.Millisecond {
				t.Fatalf("reset later: Wait returned after %v, the earlier instant still armed", el)
			}
		})
	}
}

// Stop, or a Reset to a later instant, forgets an armed instant that has
// already passed but was not waited for.
func TestSleeperStopAndResetForgetAPassedInstant(t *testing.T) {
	for name, newSleeper := range sleeperKinds(t) {
		t.Run(name, func(t *testing.T) {
			s := newSleeper()
			s.Reset(5 * time.Millisecond)
			s.Stop()
			blocks(t, s, 50*time.Millisecond)
			s.Reset(time.Millisecond)
			time.Sleep(20 * time.Millisecond) // passed, not waited for
			s.Stop()
			blocks(t, s, 30*time.Millisecond)
			s.Reset(time.Millisecond)
			time.Sleep(20 * time.Millisecond)
			s.Reset(time.Hour)
			blocks(t, s, 30*time.Millisecond)
		})
	}
}

// Re-arms around the instant of expiry, some waited for: a Wait returns no
// earlier than the instant last armed, and an expiry that belongs to an
// earlier arm never ends a Wait after a Reset or Stop.
func TestSleeperManyResets(t *testing.T) {
	for name, newSleeper := range sleeperKinds(t) {
		t.Run(name, func(t *testing.T) {
			s := newSleeper()
			for i := range 500 {
				d := time.Duration(i%7) * 20 * time.Microsecond
				start := time.Now()
				s.Reset(d)
				if i%3 == 0 {
					time.Sleep(time.Duration(i%5) * 30 * time.Microsecond)
				}
				switch {
				case i%4 == 0:
					if el := waited(t, s); time.Since(start) < d {
						t.Fatalf("turn %d: Wait returned %v after a Reset(%v)", i, el, d)
					}
				case i%2 == 0:
					s.Reset(time.Hour)
				default:
					s.Stop()
				}
				if i%50 == 1 {
					blocks(t, s, 2*time.Millisecond)
				}
			}
			s.Stop()
			blocks(t, s, 30*time.Millisecond)
			start := time.Now()
			s.Reset(5 * time.Millisecond)
			waited(t, s)
			if el := time.Since(start); el < 5*time.Millisecond {
				t.Fatalf("Wait returned %v after the last Reset, want at least 5ms", el)
			}
		})
	}
}
