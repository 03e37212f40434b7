package deadlines

import (
	"bytes"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

var seedFlag = flag.Uint64("seed", 0, "seed of the randomized tests; 0 picks a new one")

// newRand returns the test's random source and logs its seed for replay.
func newRand(t testing.TB) *rand.Rand {
	seed := *seedFlag
	if seed == 0 {
		seed = rand.Uint64()
	}
	t.Logf("seed %d (replay with -seed=%d)", seed, seed)
	return rand.New(rand.NewPCG(seed, seed>>32|1))
}

// logUniform returns a duration spread evenly on a log scale over [lo, hi].
func logUniform(r *rand.Rand, lo, hi time.Duration) time.Duration {
	a, b := math.Log(float64(lo)), math.Log(float64(hi))
	return time.Duration(math.Exp(a + r.Float64()*(b-a)))
}

// horizon returns an offset from now for a deadline: mostly sub-tick to two
// weeks, sometimes in the past, on a tick boundary, or years out.
func horizon(r *rand.Rand, tick time.Duration) time.Duration {
	switch r.IntN(12) {
	case 0:
		return -logUniform(r, 1, time.Hour)
	case 1:
		return time.Duration(r.Int64N(int64(tick) + 1))
	case 2:
		return time.Duration(r.Int64N(1000)) * tick
	case 3:
		return logUniform(r, 24*time.Hour, 20*365*24*time.Hour)
	default:
		return logUniform(r, 1, 14*24*time.Hour)
	}
}

func sameDeadline(a, b Deadline) bool {
	return a.Key == b.Key && a.Kind == b.Kind && a.At.Equal(b.At) &&
		a.Since.IsZero() == b.Since.IsZero() && a.Since.Equal(b.Since) &&
		bytes.Equal(a.Payload, b.Payload)
}

func sameBatch(a, b []Deadline) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !sameDeadline(a[i], b[i]) {
			return false
		}
	}
	return true
}

// TestWheelMatchesModel runs random operations at mixed horizons against the
// wheel and the naive model and compares every answer.
func TestWheelMatchesModel(t *testing.T) {
	r := newRand(t)
	ticks := []time.Duration{time.Millisecond, time.Millisecond, 10 * time.Millisecond,
		time.Second, time.Nanosecond, 3*time.Millisecond + 7}
	rounds, ops := 30, 5000
	if testing.Short() {
		rounds = 4
	}
	for round := range rounds {
		tick := ticks[r.IntN(len(ticks))]
		nkeys := 1 + r.IntN(300)
		runModelRound(t, r, tick, nkeys, ops)
		if t.Failed() {
			t.Fatalf("round %d failed (tick %v, %d keys)", round, tick, nkeys)
		}
	}
}

func runModelRound(t *testing.T, r *rand.Rand, tick time.Duration, nkeys, ops int) {
	now := time.Unix(1_700_000_000+r.Int64N(1e8), r.Int64N(1e9))
	w, m := NewWheel(tick, now), newModel()
	if r.IntN(2) == 0 {
		forceHints(w, 1<<r.IntN(5)) // a small wheel has none: give it a few, often stale
	}
	keys := modelKeys(nkeys)
	kinds := []string{"burst", "reconcile", "lease"}
	var due []Deadline
	last := 0
	for op := range ops {
		// A third of the ops take the key after the last one: sweeps in
		// the order the keys were made, which lookups find next to the
		// entry found last (afterRecent).
		ki := r.IntN(nkeys)
		if r.IntN(3) == 0 {
			ki = (last + 1) % nkeys
		}
		last = ki
		key, kind := keys[ki], kinds[r.IntN(len(kinds))]
		var payload []byte
		if r.IntN(3) == 0 {
			payload = []byte{byte(op), byte(op >> 8)}
		}
		switch p := r.IntN(100); {
		case p < 25:
			at := now.Add(horizon(r, tick))
			if got, want := w.Push(key, kind, at, payload), m.Push(key, kind, at, payload); got != want {
				t.Fatalf("op %d: Push(%s, %v) = %v, model %v", op, key, at, got, want)
			}
		case p < 50:
			window := logUniform(r, 1, time.Minute)
			cap := time.Duration(r.Int64N(int64(10 * time.Minute)))
			if got, want := w.Extend(key, kind, now, window, cap), m.Extend(key, kind, now, window, cap); !got.Equal(want) {
				t.Fatalf("op %d: Extend(%s) = %v, model %v", op, key, got, want)
			}
		case p < 58:
			d := Deadline{Key: key, Kind: kind, At: now.Add(horizon(r, tick)), Payload: payload}
			if r.IntN(2) == 0 {
				d.Since = now.Add(-time.Duration(r.Int64N(int64(time.Hour))))
			}
			w.Reset(d)
			m.Reset(d)
		case p < 68:
			if got, want := w.Cancel(key), m.Cancel(key); got != want {
				t.Fatalf("op %d: Cancel(%s) = %v, model %v", op, key, got, want)
			}
		case p < 76:
			cur := w.cur
			if !w.compactIf(nkeys, 0) { // built anew: it must answer the same
				t.Fatalf("op %d: compactIf(%d, 0) with %d pending did not rebuild", op, nkeys, w.Len())
			}
			if w.cur != cur {
				t.Fatalf("op %d: the current tick moved from %d to %d in a rebuild", op, cur, w.cur)
			}
		case p < 78:
			got, gok := w.Get(key)
			want, mok := m.Get(key)
			if gok != mok || (gok && !sameDeadline(got, want)) {
				t.Fatalf("op %d: Get(%s) = %+v %v, model %+v %v", op, key, got, gok, want, mok)
			}
		default:
			target := advanceTarget(r, w, now, tick)
			if r.IntN(2) == 0 { // a bounded one, which leaves a backlog when more are due
				max := 1 + r.IntN(8)
				due = w.AdvanceAtMost(target, max, due[:0])
				if want := m.AdvanceAtMost(target, max); !sameBatch(due, want) {
					t.Fatalf("op %d: AdvanceAtMost(%v, %d) = %v, model %v", op, target, max, due, want)
				}
			} else {
				due = w.Advance(target, due[:0])
				if want := m.Advance(target); !sameBatch(due, want) {
					t.Fatalf("op %d: Advance(%v) = %v, model %v", op, target, due, want)
				}
			}
			if target.After(now) {
				now = target
			}
		}
		if w.Len() != len(m.pending) {
			t.Fatalf("op %d: Len = %d, model %d", op, w.Len(), len(m.pending))
		}
		checkNext(t, op, w, m)
		if op%50 == 0 {
			checkInvariants(t, w)
		}
		if op%500 == 0 {
			checkAll(t, op, w, m)
		}
	}
	checkAll(t, ops, w, m)
}

// advanceTarget picks where to advance: mostly to Next, sometimes a step, a
// jump of weeks or years, or back in time.
func advanceTarget(r *rand.Rand, w *Wheel, now time.Time, tick time.Duration) time.Time {
	switch p := r.IntN(20); {
	case p < 12:
		if next, ok := w.Next(); ok && next.After(now) {
			return next
		}
		return now.Add(tick)
	case p < 16:
		return now.Add(logUniform(r, 1, time.Minute))
	case p < 18:
		return now.Add(logUniform(r, time.Hour, 30*24*time.Hour))
	case p < 19 && now.Year() < 2150: // the model's UnixNano ends in 2262
		return now.Add(logUniform(r, 365*24*time.Hour, 30*365*24*time.Hour))
	default:
		return now.Add(-logUniform(r, 1, time.Hour))
	}
}

func checkNext(t *testing.T, op int, w *Wheel, m *model) {
	t.Helper()
	got, gok := w.Next()
	want, mok := m.Next()
	if gok != mok || got.After(want) {
		t.Fatalf("op %d: Next = %v %v, earliest At %v %v", op, got, gok, want, mok)
	}
	// Exact once the earliest is overdue or within level 0's 64 ticks.
	due := w.heads[bucketOverdue] != nilIdx || w.heads[bucketBacklog] != nilIdx
	if l, _, ok := w.firstSlot(); gok && (due || ok && l == 0) && !got.Equal(want) {
		t.Fatalf("op %d: Next = %v, want the earliest At %v exactly", op, got, want)
	}
}

func checkAll(t *testing.T, op int, w *Wheel, m *model) {
	t.Helper()
	n := 0
	for d := range w.All() {
		n++
		if want, ok := m.pending[d.Key]; !ok || !sameDeadline(d, want) {
			t.Fatalf("op %d: All yields %+v, model %+v %v", op, d, want, ok)
		}
	}
	if n != len(m.pending) {
		t.Fatalf("op %d: All yields %d deadlines, model has %d", op, n, len(m.pending))
	}
}

// modelKeys makes n distinct keys of every length an entry stores or a
// lookup reads differently: under 8 bytes, 8 to 16 (read as two words),
// exactly inlineKey bytes, one byte more, and long (a deep root's path),
// sharing prefixes so that ties in At are broken by their last bytes.
func modelKeys(n int) []string {
	keys := make([]string, n)
	for i := range keys {
		k := fmt.Sprintf("k%03d", i)
		if i%8 == 4 {
			k = fmt.Sprintf("lane/%06d", i)
		}
		switch i % 4 {
		case 1:
			k = fmt.Sprintf("%s%03d", strings.Repeat("r", inlineKey-3), i%1000)
		case 2:
			k = fmt.Sprintf("%s%03d", strings.Repeat("r", inlineKey-2), i%1000)
		case 3:
			k = fmt.Sprintf("burst/%s/%03d", strings.Repeat("deep/", 2+i%40), i)
		}
		keys[i] = k
	}
	return keys
}
