package clock

import (
	"sync"
	"time"
)

// Polled is the wall clock whose sleeper waits in the network poller where
// the system allows it (a timerfd its owner reads itself, on Linux; see
// doc.go for why) and on a runtime timer elsewhere. Its timers are the
// runtime's. The daemon gives it to the engine's loop only; everything
// else keeps Real.
type Polled struct {
	// Made, if set, is called once, at the first NewSleeper, with the kind
	// of timer the sleeper waits on ("timerfd" or "runtime") and, when a
	// timerfd was wanted but could not be made, why. A later sleeper that
	// falls back does so silently.
	Made func(kind string, err error)

	once     sync.Once
	mu       sync.Mutex
	sleepers []*pollSleeper // for Close
}

// Now returns time.Now().
func (p *Polled) Now() time.Time { return time.Now() }

// NewTimer returns a runtime timer (Real's): only the sleeper waits in the
// poller.
func (p *Polled) NewTimer(d time.Duration) Timer { return Real{}.NewTimer(d) }

// NewSleeper returns a sleeper whose owner waits in the network poller
// itself (pollsleeper_linux.go), or one on a runtime timer if none can be
// made. Its timer starts disarmed.
func (p *Polled) NewSleeper() Sleeper {
	s, err := newPollSleeper()
	if s == nil {
		p.made("runtime", err)
		return newChanSleeper(Real{})
	}
	p.made("timerfd", nil)
	p.mu.Lock()
	p.sleepers = append(p.sleepers, s)
	p.mu.Unlock()
	return s
}

// made reports the first sleeper's kind to Made.
func (p *Polled) made(kind string, err error) {
	p.once.Do(func() {
		if p.Made != nil {
			p.Made(kind, err)
		}
	})
}

// Close releases the descriptor of every poller sleeper the clock made.
// Close the clock once their owners no longer wait on them; a Wake after
// it does nothing.
func (p *Polled) Close() {
	p.mu.Lock()
	ss := p.sleepers
	p.sleepers = nil
	p.mu.Unlock()
	for _, s := range ss {
		s.close()
	}
}
