package clock

import (
	"sync"
	"time"
)

// Polled is the wall clock whose timers wake through the network poller
// where the system allows it (a timerfd on Linux, see doc.go for why) and
// are the runtime's timers elsewhere. The daemon gives it to the engine's
// loop only; everything else keeps Real.
type Polled struct {
	// Made, if set, is called once, at the first NewTimer or NewSleeper,
	// with the kind of timer it made ("timerfd" or "runtime") and, when a
	// timerfd was wanted but could not be made, why. A later timer that
	// falls back does so silently.
	Made func(kind string, err error)

	once   sync.Once
	mu     sync.Mutex
	timers []interface{ close() } // poller timers and sleepers, for Close
}

// Now returns time.Now().
func (p *Polled) Now() time.Time { return time.Now() }

// NewTimer returns a poller timer that fires after d, or a runtime timer
// if none can be made.
func (p *Polled) NewTimer(d time.Duration) Timer {
	t, err := newPollTimer(d)
	if t == nil {
		p.made("runtime", err)
		return Real{}.NewTimer(d)
	}
	p.made("timerfd", nil)
	p.keep(t)
	return t
}

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
	p.keep(s)
	return s
}

// made reports the first timer's kind to Made.
func (p *Polled) made(kind string, err error) {
	p.once.Do(func() {
		if p.Made != nil {
			p.Made(kind, err)
		}
	})
}

func (p *Polled) keep(t interface{ close() }) {
	p.mu.Lock()
	p.timers = append(p.timers, t)
	p.mu.Unlock()
}

// Close releases every poller timer and sleeper the clock made (their
// descriptors and reader goroutines). A closed timer neither fires nor
// re-arms; close the clock once its timers' users have stopped.
func (p *Polled) Close() {
	p.mu.Lock()
	ts := p.timers
	p.timers = nil
	p.mu.Unlock()
	for _, t := range ts {
		t.close()
	}
}
