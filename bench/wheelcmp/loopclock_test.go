package wheelcmp

import (
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/wakewheel/wakewheel/deadlines"
	"github.com/wakewheel/wakewheel/internal/clock"
)

// BenchmarkPushFireLoopWarm and BenchmarkPushFireLoopCold are push+fire
// with the wheel driven on the daemon's loop clock, the way the
// scheduler's runner drives it: clock.Polled (a timerfd read through the
// network poller on Linux, instants rounded up to 10 µs), and each turn an
// Advance to the clock's now, then the timer reset to Next counted from a
// fresh now (0 when it is due) and waited on. BenchmarkPushFireReal* wait
// on a runtime timer instead, which sleeps in the poller's epoll_wait in
// whole milliseconds: that is the runtime column's own precision, not the
// daemon's. The Engine's own work on a wake (records, jobs) is not in
// either. wakes/batch counts the loop's wakes per 1,024 deadlines.
func BenchmarkPushFireLoopWarm(b *testing.B) {
	fourFrom(b, time.Now, pushFireLoop(warmKeys, nil), stdPushFire, nil, rlPushFire)
}
func BenchmarkPushFireLoopCold(b *testing.B) {
	fourFrom(b, time.Now, pushFireLoop(coldKeys, nil), stdPushFire, nil, rlPushFire)
}

// loopClock is the clock the daemon gives its loop.
func loopClock() *clock.Polled { return &clock.Polled{} }

// pushFireLoop pushes batches of 1,024 deadlines due 1 to 16 ms out and
// fires each batch as the runner's loop does, on a clock.Polled; when late
// is not nil, it gets the lateness of every fired deadline (the clock's
// now at the Advance that fired it, less its At).
func pushFireLoop(keys []string, late *[]time.Duration) func(b *testing.B, w *deadlines.Wheel) {
	return func(b *testing.B, w *deadlines.Wheel) {
		clk := loopClock()
		defer clk.Close()
		timer := clk.NewTimer(time.Hour)
		timer.Stop()
		var due []deadlines.Deadline
		pending, wakes, batches := 0, 0, 0
		fire := func() {
			batches++
			for pending > 0 {
				next, _ := w.Next()
				timer.Reset(max(next.Sub(clk.Now()), 0))
				<-timer.C()
				wakes++
				now := clk.Now()
				due = w.Advance(now, due[:0])
				pending -= len(due)
				if late != nil {
					for _, d := range due {
						*late = append(*late, now.Sub(d.At))
					}
				}
			}
		}
		for i := 0; b.Loop(); i++ {
			w.Push(keys[i&(len(keys)-1)], "burst", clk.Now().Add(time.Duration(i%16+1)*time.Millisecond), nil)
			if pending++; pending == batch {
				fire()
			}
		}
		fire()
		endCPU() // before the clock's descriptor and reader are released
		b.ReportMetric(float64(wakes)/float64(batches), "wakes/batch")
	}
}

// BenchmarkPushFireLateness is the precision each column of the real-time
// rows buys with its CPU: the same batches at 1,000 pending, each
// deadline's lateness (fired less due) as p50 and p99 in µs. The runtime's
// callbacks read the clock to know it (a closure a timer), so this
// benchmark's CPU is not the table's; it is not in the table.
func BenchmarkPushFireLateness(b *testing.B) {
	pending := func(at time.Time) *deadlines.Wheel {
		w := deadlines.NewWheel(time.Millisecond, at)
		for i, k := range pendingKeys[:1000] {
			w.Push(k, "pending", at.Add(horizon+time.Duration(i)*time.Microsecond), nil)
		}
		return w
	}
	report := func(b *testing.B, late []time.Duration) {
		slices.Sort(late)
		if len(late) == 0 {
			return
		}
		b.ReportMetric(float64(late[len(late)/2])/1e3, "late-p50-µs")
		b.ReportMetric(float64(late[len(late)*99/100])/1e3, "late-p99-µs")
	}
	b.Run("runtime", func(b *testing.B) {
		var wg sync.WaitGroup
		lat := make([]time.Duration, batch)
		var late []time.Duration
		for i := 0; b.Loop(); i++ {
			j, d := i%batch, time.Duration(i%16+1)*time.Millisecond
			at := time.Now().Add(d)
			wg.Add(1)
			time.AfterFunc(d, func() { lat[j] = time.Since(at); wg.Done() })
			if j == batch-1 {
				wg.Wait()
				late = append(late, lat...)
			}
		}
		wg.Wait()
		report(b, late)
	})
	b.Run("wheel-runtimetimer", func(b *testing.B) {
		var late []time.Duration
		w := pending(time.Now())
		var due []deadlines.Deadline
		n := 0
		t := time.NewTimer(time.Hour)
		defer t.Stop()
		fire := func() {
			for n > 0 {
				next, _ := w.Next()
				if d := time.Until(next); d > 0 {
					t.Reset(d)
					<-t.C
				}
				now := time.Now()
				due = w.Advance(now, due[:0])
				n -= len(due)
				for _, d := range due {
					late = append(late, now.Sub(d.At))
				}
			}
		}
		for i := 0; b.Loop(); i++ {
			w.Push(warmKeys[i&(warm-1)], "burst", time.Now().Add(time.Duration(i%16+1)*time.Millisecond), nil)
			if n++; n == batch {
				fire()
			}
		}
		fire()
		report(b, late)
	})
	b.Run("wheel-loopclock", func(b *testing.B) {
		var late []time.Duration
		pushFireLoop(warmKeys, &late)(b, pending(time.Now()))
		report(b, late)
	})
}
