package deadlines

import (
	"fmt"
	"runtime"
	"testing"
	"time"
)

// TestLateness pushes 100,000 deadlines at horizons spread log-uniformly from
// 1 ms to two weeks, plus more while time runs, and drives the wheel as the
// runner does under a fake clock: advance to Next, again and again (and,
// first, to a nanosecond before it, as a timer that fired early would).
// Every deadline fires at its own instant: none early, none late, not even
// by the tick's rounding.
func TestLateness(t *testing.T) {
	const (
		n     = 100_000
		more  = 20_000 // pushed while time runs, from fired deadlines
		tick  = time.Millisecond
		reach = 14 * 24 * time.Hour
	)
	r := newRand(t)
	start := time.Unix(1_750_000_000, int64(r.IntN(1e9)))
	w := NewWheel(tick, start)
	for i := range n {
		w.Push(fmt.Sprint("d", i), "k", start.Add(logUniform(r, tick, reach)), nil)
	}
	pushed, advances, fired := n, 0, 0
	var due []Deadline
	for {
		next, ok := w.Next()
		if !ok {
			break
		}
		advances++
		if due = w.Advance(next.Add(-time.Nanosecond), due[:0]); len(due) != 0 {
			t.Fatalf("a nanosecond before Next %v, %s due %v fired", next, due[0].Key, due[0].At)
		}
		due = w.Advance(next, due[:0])
		fired += len(due)
		for _, d := range due {
			if lateness := next.Sub(d.At); lateness != 0 {
				t.Fatalf("%s due %v fired at %v (%v late)", d.Key, d.At, next, lateness)
			}
			if pushed < n+more {
				w.Push(fmt.Sprint("d", pushed), "k", next.Add(logUniform(r, tick, reach)), nil)
				pushed++
			}
		}
	}
	if fired != pushed {
		t.Fatalf("fired %d of %d deadlines", fired, pushed)
	}
	t.Logf("%d deadlines, %d advances: each at its own instant", fired, advances)
}

// Firing inside a tick, the path every reminder now takes (the wheel stops
// in the tick of now and keeps that tick's later deadlines on the overdue
// list, sorted there in place), allocates nothing but the fired keys'
// copies, which share chunks of outChunk bytes: far less than one
// allocation a deadline.
func TestFiringInsideATickAllocatesNothing(t *testing.T) {
	w := NewWheel(time.Millisecond, t0)
	keys := makeKeys("r", 8)
	now := t0
	var due []Deadline
	run := func() {
		for i, k := range keys { // out of At order, within two ticks
			w.Push(k, "reminder", now.Add(time.Duration(1_300_000+(i*5%8)*100_000)), nil)
		}
		for w.Len() > 0 {
			now, _ = w.Next()
			due = w.Advance(now, due[:0])
		}
	}
	run() // grows the slab, the index and due once
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	const rounds = 2000
	for range rounds {
		run()
	}
	runtime.ReadMemStats(&after)
	fired := rounds * len(keys)
	if allocs := after.Mallocs - before.Mallocs; allocs*20 > uint64(fired) {
		t.Fatalf("push and fire inside a tick: %d allocations for %d deadlines fired, want at most one for 20", allocs, fired)
	}
}
