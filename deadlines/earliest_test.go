package deadlines

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"
)

// TestEarliestIsTheMinimum checks Earliest against a scan of every pending
// deadline while deadlines are pushed (some already overdue), reset and
// extended (later, in their slot or out of it), cancelled and fired across
// every level of the wheel.
func TestEarliestIsTheMinimum(t *testing.T) {
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 1))
	start := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	w := NewWheel(time.Millisecond, start)
	now := start
	if _, ok := w.Earliest(); ok {
		t.Fatal("an empty wheel has an earliest deadline")
	}
	for step := range 4000 {
		key := fmt.Sprintf("k%d", rng.IntN(500))
		switch rng.IntN(7) {
		case 0:
			w.Cancel(key)
		case 1:
			now = now.Add(time.Duration(rng.Int64N(int64(time.Hour))))
			w.Advance(now, nil)
		case 2: // later or earlier, often within the same slot
			at := now.Add(time.Duration(rng.Int64N(int64(14 * 24 * time.Hour))))
			w.Reset(Deadline{Key: key, Kind: "k", At: at})
		case 3:
			w.Extend(key, "k", now, time.Duration(rng.Int64N(int64(48*time.Hour)))+time.Millisecond, 72*time.Hour)
		default:
			// From an hour in the past (overdue) to two weeks ahead.
			at := now.Add(time.Duration(rng.Int64N(int64(14*24*time.Hour))) - time.Hour)
			w.Push(key, "k", at, nil)
		}
		var want Deadline
		found := false
		for d := range w.All() {
			if !found || d.At.Before(want.At) || d.At.Equal(want.At) && d.Key < want.Key {
				want, found = d, true
			}
		}
		got, ok := w.Earliest()
		if ok != found || ok && (got.Key != want.Key || !got.At.Equal(want.At)) {
			t.Fatalf("step %d: Earliest = %v %v %v, want %v %v %v", step, got.Key, got.At, ok, want.Key, want.At, found)
		}
	}
}

// Earliest remembers a slot's smallest entry; when that entry moves later
// inside its slot, or another moves before it, the answer follows.
func TestEarliestFollowsMovesInsideASlot(t *testing.T) {
	start := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	w := NewWheel(time.Millisecond, start)
	base := start.Add(30 * 24 * time.Hour) // one coarse slot holds them all
	for i := range 1000 {
		w.Push(fmt.Sprintf("k%04d", i), "k", base.Add(time.Duration(i)*time.Millisecond), nil)
	}
	expect := func(key string) {
		t.Helper()
		if d, ok := w.Earliest(); !ok || d.Key != key {
			t.Fatalf("Earliest = %q %v, want %q", d.Key, ok, key)
		}
	}
	expect("k0000")
	w.Reset(Deadline{Key: "k0000", Kind: "k", At: base.Add(500 * time.Millisecond)}) // later, same slot
	expect("k0001")
	w.Extend("k0001", "k", base, time.Second, time.Second) // later again
	expect("k0002")
	w.Push("k0900", "k", base.Add(-time.Millisecond), nil) // earlier, same slot
	expect("k0900")
	w.Cancel("k0900")
	expect("k0002")
}
