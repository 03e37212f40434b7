package clock

import "time"

// Sleeper is a timer that one goroutine, its owner, sleeps on, and that any
// goroutine can cut short: the engine's loop sleeps until its next wake or
// until a request arrives. Reset, Stop and Wait are the owner's; Wake is
// anyone's.
type Sleeper interface {
	// Reset arms the sleeper for d from now; d <= 0: the next Wait
	// returns at once.
	Reset(d time.Duration)
	// Stop disarms it: the next Wait lasts until a Wake.
	Stop()
	// Wait returns once the armed instant has passed or a Wake has come
	// since the last Wait returned; it may also return early, once after a
	// Wake already seen, so its caller looks again at what it waits for.
	Wait()
	// Wake ends the Wait under way, or the next one. What the waker made
	// ready for the owner before calling Wake is seen by the owner when its
	// Wait returns.
	Wake()
}

// NewSleeper returns the sleeper of c: Polled's sleeps in the network
// poller on Linux; any other clock's is a timer of c and a channel.
func NewSleeper(c Clock) Sleeper {
	if p, ok := c.(*Polled); ok {
		return p.NewSleeper()
	}
	return newChanSleeper(c)
}

// chanSleeper waits on a timer of its clock and on a channel that Wake
// fills.
type chanSleeper struct {
	t    Timer
	wake chan struct{}
}

func newChanSleeper(c Clock) *chanSleeper {
	s := &chanSleeper{t: c.NewTimer(time.Hour), wake: make(chan struct{}, 1)}
	s.t.Stop()
	return s
}

func (s *chanSleeper) Reset(d time.Duration) { s.t.Reset(d) }
func (s *chanSleeper) Stop()                 { s.t.Stop() }

func (s *chanSleeper) Wait() {
	select {
	case <-s.t.C():
	case <-s.wake:
	}
}

func (s *chanSleeper) Wake() {
	select {
	case s.wake <- struct{}{}:
	default: // one is pending already
	}
}
