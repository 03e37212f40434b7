package clock

import (
	"runtime"
	"slices"
	"sync/atomic"
	"testing"
	"time"
)

// node is one cell of a pointer-heavy heap the collector has to mark, like
// the wheel's.
type node struct {
	next *node
	pad  [6]*int
}

// How late a 1 ms sleep ends while the collector marks a heap of about
// 80 MB over and over (the daemon's heap at a million deadlines): the
// runtime's timer waits for an idle mark worker to yield, the poller's
// sleeper does not. The metrics are the lateness's p50 and p99 in µs.
func BenchmarkSleeperLateDuringMark(b *testing.B) {
	heap := make([]*node, 1<<20) // 1M nodes of 56 bytes (64 allocated)
	for i := range heap {
		heap[i] = &node{}
		if i > 0 {
			heap[i].next = heap[i-1]
		}
	}
	var stop atomic.Bool
	done := make(chan struct{})
	go func() { // collections back to back, the Ps otherwise idle
		defer close(done)
		for !stop.Load() {
			runtime.GC()
		}
	}()
	defer func() { stop.Store(true); <-done; runtime.KeepAlive(heap) }()
	for name, newSleeper := range sleeperKinds(b) {
		b.Run(name, func(b *testing.B) {
			s := newSleeper()
			var late []time.Duration
			for b.Loop() {
				start := time.Now()
				s.Reset(time.Millisecond)
				s.Wait()
				late = append(late, time.Since(start)-time.Millisecond)
			}
			slices.Sort(late)
			b.ReportMetric(float64(late[len(late)/2].Microseconds()), "p50-µs")
			b.ReportMetric(float64(late[len(late)*99/100].Microseconds()), "p99-µs")
			b.ReportMetric(0, "ns/op")
		})
	}
}
