package deadlines

import (
	"fmt"
	"testing"
	"time"
)

// BenchmarkFireBacklog fires n deadlines with one Advance, as a daemon
// restarted after downtime fires what fell due while it was down: ns/op is
// per deadline fired. The keys were pushed in an order unrelated to their
// instants (backlogWheel).
func BenchmarkFireBacklog(b *testing.B) {
	for _, n := range []int{1_000, 100_000, 1_000_000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			var due []Deadline
			for b.Loop() {
				b.StopTimer()
				w := backlogWheel(n)
				b.StartTimer()
				due = w.Advance(benchStart.Add(time.Hour), due[:0])
				if len(due) != n {
					b.Fatalf("fired %d of %d", len(due), n)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/deadline")
		})
	}
}

// BenchmarkDrainBacklog is BenchmarkFireBacklog fired as the engine fires
// a backlog: AdvanceAtMost 256 at a time until none is left. ns/deadline
// is the whole drain's per deadline; first-call-ms the call that found
// them all due (which takes them out of their slots and orders them), and
// max-later-call-µs the longest of the calls after it.
func BenchmarkDrainBacklog(b *testing.B) {
	for _, n := range []int{1_000, 100_000, 1_000_000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			var due []Deadline
			var first, later time.Duration
			for b.Loop() {
				b.StopTimer()
				w := backlogWheel(n)
				b.StartTimer()
				fired, now := 0, benchStart.Add(time.Hour)
				for call := 0; fired < n; call++ {
					t0 := time.Now()
					due = w.AdvanceAtMost(now, 256, due[:0])
					if d := time.Since(t0); call == 0 {
						first = max(first, d)
					} else {
						later = max(later, d)
					}
					fired += len(due)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/deadline")
			b.ReportMetric(float64(first.Microseconds())/1e3, "first-call-ms")
			b.ReportMetric(float64(later.Microseconds()), "max-later-call-µs")
		})
	}
}

// backlogWheel holds n deadlines due within n µs of benchStart, pushed in
// an order unrelated to their instants, so that the fired entries' index
// groups are scattered.
func backlogWheel(n int) *Wheel {
	w := NewWheel(time.Millisecond, benchStart)
	for i, k := range pendingKeys[:n] {
		w.Push(k, "reconcile", benchStart.Add(time.Duration(i*7919%n)*time.Microsecond), nil)
	}
	return w
}
