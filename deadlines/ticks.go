package deadlines

import (
	"math"
	"time"
)

// Inside the wheel every instant is an int64 count of nanoseconds since the
// Unix epoch, and every due tick a uint64 tick number. A time.Time spans far
// more than int64 nanoseconds can (the years 1678 to 2262), so conversions
// clamp to that range; the zero time.Time, which means "no window" in Since,
// has a value of its own.

const (
	// noSince stores the zero Since of a pushed (not extended) deadline.
	noSince int64 = math.MinInt64
	// minNanos is the earliest instant a non-zero time converts to.
	minNanos int64 = math.MinInt64 + 1
	// bias maps signed tick numbers onto uint64 in the same order, so the
	// digit arithmetic of the levels works on plain unsigned numbers.
	bias uint64 = 1 << 63
	// fastSeconds bounds, in seconds from the epoch, the instants whose
	// UnixNano is certainly representable (about the years 1684 to 2255).
	fastSeconds = 9_000_000_000
)

var (
	minTime = time.Unix(0, minNanos)
	maxTime = time.Unix(0, math.MaxInt64)
)

// toNanos converts t to nanoseconds since the epoch, clamped to int64.
func toNanos(t time.Time) int64 {
	if ns, ok := fastNanos(t); ok {
		return ns
	}
	return clampedNanos(t)
}

// fastNanos is toNanos for an instant whose UnixNano is certainly
// representable (ok), small enough to be inlined where a conversion is on
// a hot path: the caller calls clampedNanos when it is not ok.
func fastNanos(t time.Time) (int64, bool) {
	s := t.Unix()
	return s*1e9 + int64(t.Nanosecond()), uint64(s+fastSeconds) < 2*fastSeconds // -fastSeconds <= s < fastSeconds, in one compare
}

// clampedNanos is toNanos for an instant near or beyond the int64 range.
func clampedNanos(t time.Time) int64 {
	if t.Before(minTime) {
		return minNanos
	}
	if t.After(maxTime) {
		return math.MaxInt64
	}
	return t.UnixNano()
}

// sinceNanos converts a Since, keeping the zero time apart.
func sinceNanos(t time.Time) int64 {
	if t.IsZero() {
		return noSince
	}
	return toNanos(t)
}

// sinceTime is the inverse of sinceNanos.
func sinceTime(ns int64) time.Time {
	if ns == noSince {
		return time.Time{}
	}
	return time.Unix(0, ns)
}

// addNanos returns ns+d, saturating instead of overflowing.
func addNanos(ns int64, d time.Duration) int64 {
	s := ns + int64(d)
	switch {
	case d > 0 && s < ns:
		return math.MaxInt64
	case d < 0 && s > ns:
		return minNanos
	}
	return s
}

// clampAt limits an instant to the span in which due ticks, and the times
// of slot starts, are representable for this wheel's tick.
func (w *Wheel) clampAt(ns int64) int64 {
	return min(max(ns, w.minAt), w.maxAt)
}

// dueTick is the biased number of the tick the wheel files at under: at
// rounded up to a multiple of the base tick, the first tick boundary at or
// after at (the deadline itself fires at at, not at the boundary). at must
// be clamped.
//
// Both divide the distance from minAt, a multiple of the tick and the
// earliest clamped instant, so the dividend is never negative and the
// wheel's divider applies: at - minAt + tick - 1 stays below 2^64 because
// maxAt - minAt is at most 2^64 - 1 - tick.
func (w *Wheel) dueTick(at int64) uint64 {
	return w.tickBase + w.div.div(uint64(at)-uint64(w.minAt)+uint64(w.tick-1))
}

// floorTick is the biased number of the last tick at or before ns (clamped).
func (w *Wheel) floorTick(ns int64) uint64 {
	return w.tickBase + w.div.div(uint64(ns)-uint64(w.minAt))
}

// tickNanos is the instant, in nanoseconds, at which the biased tick u
// starts.
func (w *Wheel) tickNanos(u uint64) int64 { return int64(u^bias) * w.tick }

// tickTime is tickNanos as a time.Time.
func (w *Wheel) tickTime(u uint64) time.Time { return time.Unix(0, w.tickNanos(u)) }
