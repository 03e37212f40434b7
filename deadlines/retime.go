package deadlines

import (
	"iter"
	"time"
)

// Timing is how an owner times one of its deadlines under a configuration:
// the Window it is set to from now (a silence, a quiet, a cadence) and, for
// a sliding window, the Cap counted from its Since. Zero means none.
type Timing struct {
	Window time.Duration
	Cap    time.Duration
}

// A Timetable is an owner's declaration of the keys it times: the Timing
// of key under one configuration, and false for a key it does not own (or
// does not time from configuration, like a reminder's caller-given window).
type Timetable func(key string) (Timing, bool)

// Retime is the re-timing rule for a deadline d pending at now whose
// owner's timing changed from was to is. Each span that got SHORTER pulls
// the deadline in:
//
//	a window:  At' = min(At, now + new window)
//	a cap:     At' = min(At, max(now, Since + new cap))   (sliding windows only)
//
// A deadline never moves later: a longer window applies from the next event
// that extends it (or the next wake, for a cadence). The mutation is a
// Reset that keeps Since, Kind and Payload, so the window's cap still
// counts from its first event. ok is false when d stays.
func Retime(d Deadline, now time.Time, was, is Timing) (m Mutation, ok bool) {
	at := d.At
	if is.Window > 0 && is.Window < was.Window {
		at = earlier(at, now.Add(is.Window))
	}
	if is.Cap > 0 && is.Cap < was.Cap && !d.Since.IsZero() {
		capAt := d.Since.Add(is.Cap)
		if capAt.Before(now) {
			capAt = now
		}
		at = earlier(at, capAt)
	}
	if !at.Before(d.At) {
		return Mutation{}, false
	}
	return Mutation{Op: OpReset, Key: d.Key, Kind: d.Kind, At: at, Since: d.Since, Payload: d.Payload}, true
}

// RetimeAll applies Retime to every deadline of ds that the owner times
// under both timetables, and returns the mutations, in the order of ds.
func RetimeAll(ds iter.Seq[Deadline], now time.Time, was, is Timetable) []Mutation {
	var out []Mutation
	for d := range ds {
		old, ok := was(d.Key)
		if !ok {
			continue
		}
		cur, ok := is(d.Key)
		if !ok {
			continue
		}
		if m, ok := Retime(d, now, old, cur); ok {
			out = append(out, m)
		}
	}
	return out
}

func earlier(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}
