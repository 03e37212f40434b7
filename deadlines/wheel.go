package deadlines

import (
	"iter"
	"slices"
	"strings"
	"time"
)

// Wheel holds pending deadlines. PLACEHOLDER implementation (map + scan) with
// the final API; replaced by the hierarchical wheel.
type Wheel struct {
	tick    int64
	pending map[string]Deadline
}

// NewWheel returns an empty wheel with the given base tick (> 0), starting at start.
func NewWheel(tick time.Duration, start time.Time) *Wheel {
	if tick <= 0 {
		panic("deadlines: tick must be positive")
	}
	return &Wheel{tick: int64(tick), pending: map[string]Deadline{}}
}

// Tick is the base tick.
func (w *Wheel) Tick() time.Duration { return time.Duration(w.tick) }

// Len is the number of pending deadlines.
func (w *Wheel) Len() int { return len(w.pending) }

// Push makes key fire no later than at. It reports whether the pending At
// changed (created, or pulled earlier).
func (w *Wheel) Push(key, kind string, at time.Time, payload []byte) bool {
	d, ok := w.pending[key]
	if ok && !at.Before(d.At) {
		return false
	}
	w.pending[key] = Deadline{Key: key, Kind: kind, At: at, Payload: payload}
	return true
}

// Extend slides key's window: At = min(now+window, Since+cap), Since kept from
// the first extend. It returns the new At.
func (w *Wheel) Extend(key, kind string, now time.Time, window, cap time.Duration) time.Time {
	d, ok := w.pending[key]
	if !ok || d.Since.IsZero() {
		d = Deadline{Key: key, Kind: kind, Since: now, Payload: d.Payload}
	}
	at := now.Add(window)
	if limit := d.Since.Add(cap); limit.Before(at) {
		at = limit
	}
	d.At = at
	w.pending[key] = d
	return at
}

// Reset sets d unconditionally.
func (w *Wheel) Reset(d Deadline) { w.pending[d.Key] = d }

// Cancel removes key and reports whether it was pending.
func (w *Wheel) Cancel(key string) bool {
	_, ok := w.pending[key]
	delete(w.pending, key)
	return ok
}

// Get returns the pending deadline for key.
func (w *Wheel) Get(key string) (Deadline, bool) {
	d, ok := w.pending[key]
	return d, ok
}

func (w *Wheel) dueTick(at time.Time) int64 {
	ns := at.UnixNano()
	t := ns / w.tick
	if ns%w.tick > 0 {
		t++
	}
	return t * w.tick
}

// Next returns a time no later than the earliest due tick of a pending
// deadline; false when nothing is pending.
func (w *Wheel) Next() (time.Time, bool) {
	var best int64
	found := false
	for _, d := range w.pending {
		if t := w.dueTick(d.At); !found || t < best {
			best, found = t, true
		}
	}
	return time.Unix(0, best), found
}

// Advance appends to due every deadline whose due tick is <= now, in (At,
// Key) order, removes them, and returns the extended slice.
func (w *Wheel) Advance(now time.Time, due []Deadline) []Deadline {
	start := len(due)
	limit := now.UnixNano()
	for k, d := range w.pending {
		if w.dueTick(d.At) <= limit {
			due = append(due, d)
			delete(w.pending, k)
		}
	}
	slices.SortFunc(due[start:], func(a, b Deadline) int {
		if c := a.At.Compare(b.At); c != 0 {
			return c
		}
		return strings.Compare(a.Key, b.Key)
	})
	return due
}

// All yields every pending deadline, in no particular order. The wheel must
// not be changed during the iteration.
func (w *Wheel) All() iter.Seq[Deadline] {
	return func(yield func(Deadline) bool) {
		for _, d := range w.pending {
			if !yield(d) {
				return
			}
		}
	}
}
