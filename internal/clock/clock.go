package clock

import "time"

// Clock tells the time and makes timers.
type Clock interface {
	Now() time.Time
	// NewTimer returns a timer that sends on C() once d has passed.
	NewTimer(d time.Duration) Timer
}

// Timer is the subset of *time.Timer the runner needs.
type Timer interface {
	C() <-chan time.Time
	// Reset re-arms the timer to fire after d (Go 1.23+ semantics: no
	// stale value is received after Reset or Stop).
	Reset(d time.Duration)
	Stop() bool
}

// Real is the wall clock.
type Real struct{}

// Now returns time.Now().
func (Real) Now() time.Time { return time.Now() }

// NewTimer wraps time.NewTimer.
func (Real) NewTimer(d time.Duration) Timer { return realTimer{time.NewTimer(d)} }

type realTimer struct{ t *time.Timer }

func (r realTimer) C() <-chan time.Time   { return r.t.C }
func (r realTimer) Reset(d time.Duration) { r.t.Reset(d) }
func (r realTimer) Stop() bool            { return r.t.Stop() }
