package deadlines

import (
	"fmt"
	"runtime"
	"testing"
	"time"
)

// A wheel that held 200,000 deadlines and holds 700 once the rest fired
// keeps the memory of 200,000 until Compact, which gives it back and keeps
// every deadline as it was, the ones due in the backlog, in order.
func TestCompactGivesBackWhatFired(t *testing.T) {
	start := time.Unix(1_750_000_000, 0)
	w := NewWheel(time.Millisecond, start)
	keys := makeKeys("reminder/r", 200_000)
	for i, k := range keys {
		w.Push(k, "reminder", start.Add(time.Duration(i)*time.Millisecond), nil)
	}
	if w.Compact() {
		t.Fatal("Compact rebuilt a wheel of 200,000")
	}
	base := heapAlloc()
	runtime.KeepAlive(w)
	now := start.Add(199_600 * time.Millisecond)
	w.AdvanceAtMost(now, 199_300, nil) // 301 of the 199,601 due are left in the backlog
	if w.Len() != 700 {
		t.Fatalf("Len %d after the advance, want 700", w.Len())
	}
	want := make(map[string]Deadline)
	for d := range w.All() {
		want[d.Key] = d
	}
	held := heapAlloc()
	if !w.Compact() {
		t.Fatalf("Compact did not rebuild a wheel of %d in a slab of %d", w.Len(), w.slab.n)
	}
	after := heapAlloc()
	t.Logf("heap: %.1f MB with 200,000 pending, %.1f MB with 700, %.1f MB once compacted", mb(base), mb(held), mb(after))
	if held < after || held-after < 10<<20 { // the slab of 200,000 alone is 12.5 MB
		t.Errorf("the heap went from %.1f to %.1f MB: the slab of 200,000 was not given back", mb(held), mb(after))
	}
	if w.Len() != len(want) || int(w.slab.n) > 2*pageSize {
		t.Errorf("after Compact: Len %d, slab %d entries; want %d in at most %d", w.Len(), w.slab.n, len(want), 2*pageSize)
	}
	for k, d := range want {
		if got, ok := w.Get(k); !ok || !sameDeadline(got, d) {
			t.Fatalf("Get(%s) = %+v %v after Compact, want %+v", k, got, ok, d)
		}
	}
	checkInvariants(t, w)
	due := w.AdvanceAtMost(now, 1_000, nil)
	if len(due) != 301 || due[0].Key != keys[199_300] || due[300].Key != keys[199_600] {
		t.Fatalf("the backlog after Compact fired %d, from %s to %s; want the 301 left, in order", len(due), due[0].Key, due[len(due)-1].Key)
	}
	if w.Compact() {
		t.Error("Compact rebuilt a wheel already small")
	}
}

func mb(n uint64) float64 { return float64(n) / (1 << 20) }

// BenchmarkCompact is the rebuild's cost on its owner's goroutine: 16
// and compactMax deadlines left in a slab of a million.
func BenchmarkCompact(b *testing.B) {
	start := time.Unix(1_750_000_000, 0)
	keys := makeKeys("reminder/r", 1_000_000)
	for _, left := range []int{16, compactMax} {
		b.Run(fmt.Sprint(left), func(b *testing.B) {
			for b.Loop() {
				b.StopTimer()
				w := NewWheel(time.Millisecond, start)
				for i, k := range keys {
					w.Push(k, "reminder", start.Add(time.Duration(i)*time.Microsecond), nil)
				}
				w.Advance(start.Add(time.Duration(len(keys)-left)*time.Microsecond), nil)
				b.StartTimer()
				if !w.Compact() {
					b.Fatal("no rebuild")
				}
			}
		})
	}
}
