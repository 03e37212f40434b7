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

// How late a 1 ms timer fires while the collector marks a heap of about
// 80 MB over and over (the daemon's heap at a million deadlines): the
// runtime's timer waits for an idle mark worker to yield, the poller's does
// not. The metrics are the lateness's p50 and p99 in µs.
func BenchmarkTimerLateDuringMark(b *testing.B) {
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
	p := &Polled{}
	defer p.Close()
	for _, k := range []struct {
		name     string
		newTimer func(time.Duration) Timer
	}{{"runtime", Real{}.NewTimer}, {"timerfd", p.NewTimer}} {
		b.Run(k.name, func(b *testing.B) {
			tm := k.newTimer(time.Hour)
			var late []time.Duration
			for b.Loop() {
				start := time.Now()
				tm.Reset(time.Millisecond)
				<-tm.C()
				late = append(late, time.Since(start)-time.Millisecond)
			}
			slices.Sort(late)
			b.ReportMetric(float64(late[len(late)/2].Microseconds()), "p50-µs")
			b.ReportMetric(float64(late[len(late)*99/100].Microseconds()), "p99-µs")
			b.ReportMetric(0, "ns/op")
		})
	}
}
