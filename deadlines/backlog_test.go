package deadlines

import (
	"fmt"
	"testing"
	"time"
)

// TestBacklogDrainsInOrderUnderChanges: 5,000 deadlines that share 100
// instants fall due at once and are fired 37 at a time, while, between
// the calls, deadlines of the backlog are cancelled, re-armed into the
// future or further into the past, and new ones are pushed into the past.
// Every call must fire what the model's would, the earliest in (At, Key)
// order, and the invariants must hold.
func TestBacklogDrainsInOrderUnderChanges(t *testing.T) {
	r := newRand(t)
	start := time.Unix(1_700_000_000, 0)
	w, m := NewWheel(time.Millisecond, start), newModel()
	const n = 5_000
	keys := make([]string, n)
	for i := range keys {
		keys[i] = fmt.Sprintf("reminder/%04d", (i*7919)%n) // set in an order unrelated to the keys
		at := start.Add(time.Duration(1+r.IntN(100)) * time.Second)
		w.Push(keys[i], "reminder", at, nil)
		m.Push(keys[i], "reminder", at, nil)
	}
	now := start.Add(time.Hour)
	var due []Deadline
	for call := 0; len(m.pending) > 0; call++ {
		due = w.AdvanceAtMost(now, 37, due[:0])
		if want := m.AdvanceAtMost(now, 37); !sameBatch(due, want) {
			t.Fatalf("call %d: fired %v, model %v", call, due, want)
		}
		if call == 0 && w.Overdue() != n-37 {
			t.Fatalf("after the first call %d overdue, want %d", w.Overdue(), n-37)
		}
		k := keys[r.IntN(n)]
		switch call % 4 {
		case 0:
			if got, want := w.Cancel(k), m.Cancel(k); got != want {
				t.Fatalf("call %d: Cancel(%s) = %v, model %v", call, k, got, want)
			}
		case 1: // into the future, and back to the backlog's past next round
			d := Deadline{Key: k, Kind: "reminder", At: now.Add(time.Duration(r.IntN(3)) * time.Millisecond)}
			w.Reset(d)
			m.Reset(d)
		case 2: // into the backlog's middle
			d := Deadline{Key: k, Kind: "reminder", At: start.Add(time.Duration(1+r.IntN(100)) * time.Second)}
			w.Reset(d)
			m.Reset(d)
		case 3:
			at := start.Add(time.Duration(r.IntN(100)) * time.Second)
			w.Push(k, "reminder", at, nil)
			m.Push(k, "reminder", at, nil)
		}
		if call%3 == 0 {
			now = now.Add(time.Millisecond)
		}
		if call%100 == 0 {
			checkInvariants(t, w)
			checkNext(t, call, w, m)
		}
	}
	if w.Len() != 0 || w.Overdue() != 0 {
		t.Fatalf("drained: %d pending, %d overdue", w.Len(), w.Overdue())
	}
	checkInvariants(t, w)
}

// TestAdvanceAtMostZeroChangesNothing: a bound below one fires nothing
// and does not move the wheel's time.
func TestAdvanceAtMostZeroChangesNothing(t *testing.T) {
	start := time.Unix(1_700_000_000, 0)
	w := NewWheel(time.Millisecond, start)
	w.Push("a", "k", start.Add(time.Second), nil)
	if due := w.AdvanceAtMost(start.Add(time.Hour), 0, nil); len(due) != 0 {
		t.Fatalf("fired %v", due)
	}
	if d, _ := w.Earliest(); !d.At.Equal(start.Add(time.Second)) || w.Overdue() != 0 || w.cur != w.floorTick(w.clampAt(toNanos(start))) {
		t.Fatalf("earliest %v, %d overdue, current tick %d: the wheel moved", d.At, w.Overdue(), w.cur)
	}
}

// TestLoadOrdersWhatFellDue: a load that finds deadlines past due hands
// them to the backlog in (At, Key) order (ties by key), so the first
// AdvanceAtMost after it fires the earliest of them; the others stay
// where they were.
func TestLoadOrdersWhatFellDue(t *testing.T) {
	start := time.Unix(1_700_000_000, 0)
	m := newModel()
	l := NewLoader(time.Millisecond, start)
	for i := range 10_000 {
		d := Deadline{Key: fmt.Sprintf("reminder/%05d", i), Kind: "reminder",
			At: start.Add(time.Duration((i*7919)%500-400) * time.Second)} // 401 of 500 instants due by start
		l.Add(d)
		m.Reset(d)
	}
	w := l.Wheel()
	checkInvariants(t, w)
	if w.Overdue() != 8_020 || w.heads[bucketOverdue] != nilIdx {
		t.Fatalf("%d overdue, overdue list empty %v: want 8020, all in the backlog", w.Overdue(), w.heads[bucketOverdue] == nilIdx)
	}
	for call := 0; call < 3; call++ {
		due := w.AdvanceAtMost(start, 100, nil)
		if want := m.AdvanceAtMost(start, 100); !sameBatch(due, want) {
			t.Fatalf("call %d: fired %v, model %v", call, due, want)
		}
	}
	checkInvariants(t, w)
}
