package deadlines

import (
	"fmt"
	"testing"
	"time"
)

// BenchmarkFireBacklog fires n deadlines with one Advance, as a daemon
// restarted after downtime fires what fell due while it was down: ns/op is
// per deadline fired. The keys were pushed in an order unrelated to their
// instants, so the fired entries' index groups are scattered.
func BenchmarkFireBacklog(b *testing.B) {
	for _, n := range []int{1_000, 100_000, 1_000_000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			var due []Deadline
			for b.Loop() {
				b.StopTimer()
				w := NewWheel(time.Millisecond, benchStart)
				for i, k := range pendingKeys[:n] {
					w.Push(k, "reconcile", benchStart.Add(time.Duration(i*7919%n)*time.Microsecond), nil)
				}
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
