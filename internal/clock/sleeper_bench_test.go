package clock

import (
	"testing"
	"time"
)

// The loop's cost of a turn's re-arm: to the same deadline (the common
// turn, a request served while the next deadline stays put) and to a new
// one each time (a deadline fired or was added).
func BenchmarkSleeperReset(b *testing.B) {
	for name, newSleeper := range sleeperKinds(b) {
		b.Run(name+"/same", func(b *testing.B) {
			s := newSleeper()
			next := time.Now().Add(time.Hour)
			for b.Loop() {
				s.Reset(time.Until(next))
			}
			s.Stop()
		})
		b.Run(name+"/moving", func(b *testing.B) {
			s := newSleeper()
			next := time.Now().Add(time.Hour)
			for b.Loop() {
				next = next.Add(time.Millisecond)
				s.Reset(time.Until(next))
			}
			s.Stop()
		})
	}
}
