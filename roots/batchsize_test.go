package roots

import (
	"testing"
	"time"
)

// Batches are sized by time: the first gets DrainBudget paths, the next
// as many as fit the target at the measured cost per path, within
// [1, DrainMaxBatch]; a root's own drain_budget pins the size.
func TestBatchSizeFollowsTheMeasuredCost(t *testing.T) {
	m := &Manager{opts: Options{}.withDefaults()} // 32 first, 1s target, 4096 at most
	r := &root{}
	if n := m.batchSize(r); n != 32 {
		t.Fatalf("first batch %d, want 32", n)
	}
	r.measure(32, 32*time.Millisecond) // 1 ms a path
	if n := m.batchSize(r); n != 1000 {
		t.Fatalf("at 1ms a path: %d, want 1000 (1s)", n)
	}
	r.measure(1000, 100*time.Millisecond) // 0.1 ms a path: averaged to 0.55 ms
	if n := m.batchSize(r); n != 1818 {
		t.Fatalf("after a cheaper batch: %d, want 1818", n)
	}
	for range 20 {
		r.measure(4096, 4096*time.Microsecond/100) // 10 µs a path
	}
	if n := m.batchSize(r); n != 4096 {
		t.Fatalf("a cheap command: %d, want the cap 4096", n)
	}
	slow := &root{}
	slow.measure(32, 64*time.Second) // 2 s a path
	if n := m.batchSize(slow); n != 1 {
		t.Fatalf("a slow command: %d, want 1", n)
	}
	pinned := &root{}
	pinned.win.Store(&Windows{DrainBudget: 7})
	pinned.measure(32, time.Millisecond)
	if n := m.batchSize(pinned); n != 7 {
		t.Fatalf("pinned: %d, want 7", n)
	}
}
