package clock

import (
	"sync"
	"time"
)

// Fake is a manual clock for tests. Time moves only through Advance or Set;
// timers whose instant has been reached fire during that call.
type Fake struct {
	mu     sync.Mutex
	now    time.Time
	timers []*fakeTimer
}

// NewFake returns a fake clock reading start.
func NewFake(start time.Time) *Fake { return &Fake{now: start} }

// Now returns the fake time.
func (f *Fake) Now() time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.now
}

// Advance moves the clock forward by d and fires every timer that fell due.
func (f *Fake) Advance(d time.Duration) { f.Set(f.Now().Add(d)) }

// Set moves the clock to t (never backwards) and fires due timers.
func (f *Fake) Set(t time.Time) {
	f.mu.Lock()
	if t.After(f.now) {
		f.now = t
	}
	now := f.now
	var fire []*fakeTimer
	keep := f.timers[:0]
	for _, ft := range f.timers {
		if !ft.when.After(now) {
			fire = append(fire, ft)
		} else {
			keep = append(keep, ft)
		}
	}
	f.timers = keep
	f.mu.Unlock()
	for _, ft := range fire {
		select {
		case ft.c <- now:
		default:
		}
	}
}

// Timers is the number of armed timers (for tests that wait for a sleeper).
func (f *Fake) Timers() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.timers)
}

// NewTimer returns a timer driven by Advance and Set.
func (f *Fake) NewTimer(d time.Duration) Timer {
	ft := &fakeTimer{f: f, c: make(chan time.Time, 1)}
	ft.Reset(d)
	return ft
}

type fakeTimer struct {
	f    *Fake
	c    chan time.Time
	when time.Time
}

func (t *fakeTimer) C() <-chan time.Time { return t.c }

func (t *fakeTimer) Reset(d time.Duration) {
	t.Stop()
	select { // drain a stale value, as Go 1.23 timers do
	case <-t.c:
	default:
	}
	t.f.mu.Lock()
	t.when = t.f.now.Add(d)
	t.f.timers = append(t.f.timers, t)
	t.f.mu.Unlock()
	if d <= 0 {
		t.f.Set(t.f.Now())
	}
}

func (t *fakeTimer) Stop() bool {
	t.f.mu.Lock()
	defer t.f.mu.Unlock()
	for i, ft := range t.f.timers {
		if ft == t {
			t.f.timers = append(t.f.timers[:i], t.f.timers[i+1:]...)
			return true
		}
	}
	return false
}
