package deadlines

import (
	"slices"
	"strings"
	"time"
)

// model is the naive reference the wheel is tested against: a map and a full
// scan, with the rules written as plainly as possible.
type model struct {
	pending map[string]Deadline
}

func newModel() *model {
	return &model{pending: map[string]Deadline{}}
}

func (m *model) Push(key, kind string, at time.Time, payload []byte) bool {
	d, ok := m.pending[key]
	if ok && !at.Before(d.At) {
		return false
	}
	m.pending[key] = Deadline{Key: key, Kind: kind, At: at, Payload: payload}
	return true
}

func (m *model) Extend(key, kind string, now time.Time, window, cap time.Duration) time.Time {
	d, ok := m.pending[key]
	if !ok || d.Since.IsZero() {
		d = Deadline{Key: key, Kind: kind, Since: now, Payload: d.Payload}
	}
	at := now.Add(window)
	if limit := d.Since.Add(cap); limit.Before(at) {
		at = limit
	}
	d.At = at
	m.pending[key] = d
	return at
}

func (m *model) Reset(d Deadline) { m.pending[d.Key] = d }

func (m *model) Cancel(key string) bool {
	_, ok := m.pending[key]
	delete(m.pending, key)
	return ok
}

func (m *model) Get(key string) (Deadline, bool) {
	d, ok := m.pending[key]
	return d, ok
}

// Next is the earliest At; false when nothing is pending.
func (m *model) Next() (time.Time, bool) {
	var best time.Time
	found := false
	for _, d := range m.pending {
		if !found || d.At.Before(best) {
			best, found = d.At, true
		}
	}
	return best, found
}

// Advance fires every deadline whose At is not after now: at its instant,
// not at a tick boundary.
func (m *model) Advance(now time.Time) []Deadline {
	var due []Deadline
	for k, d := range m.pending {
		if !d.At.After(now) {
			due = append(due, d)
			delete(m.pending, k)
		}
	}
	slices.SortFunc(due, compareDeadlines)
	return due
}

// AdvanceAtMost fires the earliest max of what Advance would fire.
func (m *model) AdvanceAtMost(now time.Time, max int) []Deadline {
	due := m.Advance(now)
	if len(due) > max {
		for _, d := range due[max:] {
			m.pending[d.Key] = d
		}
		due = due[:max]
	}
	return due
}

// compareDeadlines is the order Advance hands deadlines out in: by At,
// then key.
func compareDeadlines(a, b Deadline) int {
	if c := a.At.Compare(b.At); c != 0 {
		return c
	}
	return strings.Compare(a.Key, b.Key)
}
