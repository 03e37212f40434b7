package deadlines

import (
	"testing"
	"time"
)

// rearm's span (levels.go) is a slot's instants under one current tick. A
// slot of the same number holds other instants once the current tick has
// moved on a lap of the level above, so the span must not outlive the
// tick it was made under: a deadline re-armed into the past from that slot
// must go to the overdue list and fire at the next Advance, not wait for
// the slot.
func TestRearmSpanEndsWithItsTick(t *testing.T) {
	t0 := time.UnixMilli(27 << 36) // a multiple of 64^6 ms: every digit of the current tick 0
	w := NewWheel(time.Millisecond, t0)
	// 100 ms is level 1, slot 1 (ticks 64 to 127); the second push stays in
	// that slot, so rearm makes the slot's span.
	w.Push("a", "k", t0.Add(ms(110)), nil)
	w.Push("a", "k", t0.Add(ms(100)), nil)
	if w.span.b != 1*slots+1 {
		t.Fatalf("span of bucket %d after a re-arm within level 1 slot 1", w.span.b)
	}
	// A lap of level 1 later, slot 1 of level 1 is ticks 4096+64 to 4096+127.
	lap := ms(64 * 64)
	if due := w.Advance(t0.Add(lap+ms(30)), nil); len(due) != 1 {
		t.Fatalf("fired %v, want a", keysOf(due))
	}
	w.Push("b", "k", t0.Add(lap+ms(110)), nil)
	if b := w.slab.at(w.recent).bucket(); b != 1*slots+1 {
		t.Fatalf("b is in bucket %d, want level 1 slot 1", b)
	}
	// Re-armed to the old span's instants: now in the past.
	w.Push("b", "k", t0.Add(ms(100)), nil)
	checkInvariants(t, w)
	if next, _ := w.Next(); !next.Equal(t0.Add(ms(100))) {
		t.Fatalf("Next %v after a re-arm into the past, want its At %v", next, t0.Add(ms(100)))
	}
	if due := w.Advance(t0.Add(lap+ms(30)), nil); len(due) != 1 || due[0].Key != "b" {
		t.Fatalf("fired %v at the same now, want b", keysOf(due))
	}
}

// A re-arm within the span keeps the slot's smallest entry right: moved
// earlier it stays the smallest; the smallest moved later is forgotten and
// found again; another moved before it takes its place.
func TestRearmWithinSpanKeepsSlotMinimum(t *testing.T) {
	w := NewWheel(time.Millisecond, t0)
	for i, k := range []string{"a", "b", "c"} {
		w.Extend(k, "k", t0.Add(ms(i)), time.Hour, 10*time.Hour)
	}
	earliest := func() string {
		d, _ := w.Earliest()
		return d.Key
	}
	if got := earliest(); got != "a" {
		t.Fatalf("earliest %s, want a", got)
	}
	w.Extend("a", "k", t0.Add(ms(5)), time.Hour, 10*time.Hour) // a moves after b and c
	if got := earliest(); got != "b" {
		t.Fatalf("earliest %s after a moved later, want b", got)
	}
	w.Extend("c", "k", t0.Add(-ms(1)), time.Hour, 10*time.Hour) // c moves before b
	if got := earliest(); got != "c" {
		t.Fatalf("earliest %s after c moved earlier, want c", got)
	}
	checkInvariants(t, w)
}
