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

// A slot's memory outlives the finer slots in front of it: reminders due in
// a millisecond, pushed and fired one after another before a coarse slot
// of many, leave that slot's smallest entry known, so Earliest does not
// walk the slot again after each of them fired.
func TestEarliestRemembersASlotBehindFinerOnes(t *testing.T) {
	start := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	w := NewWheel(time.Millisecond, start)
	base := start.Add(30 * 24 * time.Hour)
	for i := range 1000 {
		w.Push(fmt.Sprintf("k%04d", i), "k", base.Add(time.Duration(i)*time.Millisecond), nil)
	}
	l, s, _ := w.firstSlot() // the coarse slot holding them
	b := uint16(l*slots + s)
	if d, ok := w.Earliest(); !ok || d.Key != "k0000" {
		t.Fatalf("Earliest = %q %v, want k0000", d.Key, ok)
	}
	now := start
	for i := range 50 {
		now = now.Add(3 * time.Millisecond)
		w.Push(fmt.Sprintf("probe%d", i), "k", now.Add(time.Millisecond), nil)
		if d, _ := w.Earliest(); d.Key != fmt.Sprintf("probe%d", i) {
			t.Fatalf("Earliest = %q, want probe%d", d.Key, i)
		}
		if fired := w.Advance(now.Add(2*time.Millisecond), nil); len(fired) != 1 {
			t.Fatalf("advance fired %d, want the probe", len(fired))
		}
		if _, known := w.min.get(b); !known {
			t.Fatalf("after probe %d fired the coarse slot's smallest entry is forgotten", i)
		}
		if d, _ := w.Earliest(); d.Key != "k0000" {
			t.Fatalf("Earliest = %q, want k0000", d.Key)
		}
	}
}

// BenchmarkEarliestBehindAProbe: a million reminders a month out in one
// coarse slot, and a reminder due in a millisecond pushed, asked for and
// fired, then Earliest asked again (status on the loop between 1 ms
// reminders). With one memory for the earliest slot only, the second call
// walked the million: 11.8 ms an iteration against 336 ns with a memory
// per slot (2026-12-01, loaded box).
func BenchmarkEarliestBehindAProbe(b *testing.B) {
	start := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	w := NewWheel(time.Millisecond, start)
	base := start.Add(30 * 24 * time.Hour)
	for i := range 1_000_000 {
		w.Push(fmt.Sprintf("reminder/load-%07d", i), "k", base.Add(time.Duration(i)*time.Microsecond), nil)
	}
	w.Earliest()
	now := start
	b.ResetTimer()
	for range b.N {
		now = now.Add(3 * time.Millisecond)
		w.Push("probe", "k", now.Add(time.Millisecond), nil)
		w.Earliest()
		w.Advance(now.Add(2*time.Millisecond), nil)
		w.Earliest()
	}
}
