package clock

import (
	"testing"
	"time"
)

// The loop's cost of a turn's re-arm: to the same deadline (the common
// turn, a request served while the next deadline stays put) and to a new
// one each time (a deadline fired or was added).
func BenchmarkTimerReset(b *testing.B) {
	p := &Polled{}
	defer p.Close()
	for name, newTimer := range map[string]func(time.Duration) Timer{"runtime": Real{}.NewTimer, "timerfd": p.NewTimer} {
		b.Run(name+"/same", func(b *testing.B) {
			tm := newTimer(time.Hour)
			next := time.Now().Add(time.Hour)
			for b.Loop() {
				tm.Reset(time.Until(next))
			}
			tm.Stop()
		})
		b.Run(name+"/moving", func(b *testing.B) {
			tm := newTimer(time.Hour)
			next := time.Now().Add(time.Hour)
			for b.Loop() {
				next = next.Add(time.Millisecond)
				tm.Reset(time.Until(next))
			}
			tm.Stop()
		})
	}
}
