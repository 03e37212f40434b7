package deadlines

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"
)

// TestEarliestIsTheMinimum checks Earliest against a scan of every pending
// deadline while deadlines are pushed (some already overdue), cancelled and
// fired across every level of the wheel.
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
		switch rng.IntN(5) {
		case 0:
			w.Cancel(key)
		case 1:
			now = now.Add(time.Duration(rng.Int64N(int64(time.Hour))))
			w.Advance(now, nil)
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
