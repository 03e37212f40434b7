package deadlines

import (
	"fmt"
	"testing"
	"time"
)

// Keys made in turn and touched again in that order are each found as the
// entry after the one found last, with no index probe (their position is
// then unknown); an entry there that holds another key, or none, is not
// taken for the key, whatever its length.
func TestAfterRecentFindsTheNextKeyOnly(t *testing.T) {
	for _, prefix := range []string{"k", "lane/0000000", "reconcile/a-root-deep-in-a-tree/"} { // keys under 8 bytes, 8 to 16, over 16
		t.Run(prefix, func(t *testing.T) {
			start := time.Unix(1_750_000_000, 0)
			w := NewWheel(time.Millisecond, start)
			keys := make([]string, 8)
			for i := range keys {
				keys[i] = fmt.Sprintf("%s%d", prefix, i)
			}
			for _, k := range keys {
				w.Push(k, "burst", start.Add(time.Hour), nil)
			}
			w.Extend(keys[0], "burst", start, time.Second, time.Minute)
			for i, k := range keys[1:4] {
				w.Extend(k, "burst", start, time.Second, time.Minute)
				if w.recent != int32(i+1) || w.recentPos != noPos {
					t.Fatalf("%q: found as entry %d at position %d, want entry %d, found after the last", k, w.recent, w.recentPos, i+1)
				}
			}
			// Entry 4 freed, then reused by another key.
			if !w.Cancel(keys[4]) { // found after entry 3: its position is looked up to delete it
				t.Fatalf("%q not pending", keys[4])
			}
			w.Get(keys[3])
			if _, ok := w.Get(keys[4]); ok {
				t.Fatalf("%q found in its freed entry", keys[4])
			}
			other := prefix + "x"
			w.Push(other, "burst", start.Add(time.Hour), nil)
			w.Get(keys[3])
			if _, ok := w.Get(keys[4]); ok {
				t.Fatalf("%q found in the entry reused by %q", keys[4], other)
			}
			if d, ok := w.Get(other); !ok || d.Key != other {
				t.Fatalf("%q: got %+v, %v", other, d, ok)
			}
			for _, k := range keys[5:] {
				if !w.Cancel(k) {
					t.Fatalf("%q not pending", k)
				}
			}
			if w.Len() != 5 {
				t.Fatalf("%d pending, want 5", w.Len())
			}
			checkInvariants(t, w)
		})
	}
}

// A freed entry's key length is 0, as the empty key's is: the entry after
// the one found last is not taken for the empty key once it is freed.
func TestAfterRecentSkipsAFreedEntryForTheEmptyKey(t *testing.T) {
	start := time.Unix(1_750_000_000, 0)
	w := NewWheel(time.Millisecond, start)
	w.Push("k", "burst", start.Add(time.Hour), nil)
	w.Push("", "burst", start.Add(time.Hour), nil)
	if !w.Cancel("") {
		t.Fatal(`"" not pending`)
	}
	w.Get("k")
	if d, ok := w.Get(""); ok {
		t.Fatalf(`"" found in its freed entry: %+v`, d)
	}
	if w.Cancel("") {
		t.Fatal(`"" cancelled twice`)
	}
	checkInvariants(t, w)
}
