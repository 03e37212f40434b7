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
// Advance to the clock's now, then the clock's sleeper reset to the
// wheel's Wake with the daemon's default timer slack (a tick) counted from
// a fresh now (0 when it is due) and waited on, the loop itself parked in
// the poller, as the runner waits (clock.Sleeper). BenchmarkPushFireReal* wait on a
// runtime timer instead, which sleeps in the poller's epoll_wait in whole
// milliseconds: that is the runtime column's own precision, not the
// daemon's. The Engine's own work on a wake (records, jobs) is not in
// either. wakes/batch counts the loop's wakes per 1,024 deadlines.
func BenchmarkPushFireLoopWarm(b *testing.B) {
	fourFrom(b, time.Now, pushFireLoop(warmKeys, slack, nil), stdPushFire, nil, rlPushFire)
}
func BenchmarkPushFireLoopCold(b *testing.B) {
	fourFrom(b, time.Now, pushFireLoop(coldKeys, slack, nil), stdPushFire, nil, rlPushFire)
}

// loopClock is the clock the daemon gives its loop.
func loopClock() *clock.Polled { return &clock.Polled{} }

// pushFireLoop is fireBatches on a clock.Polled, waited on as the runner
// waits: its sleeper reset to the wheel's Wake, the inbox looked at, then
// a Wait in the poller (no request ever arrives here).
func pushFireLoop(keys []string, slack time.Duration, late *[]time.Duration) func(b *testing.B, w *deadlines.Wheel) {
	return func(b *testing.B, w *deadlines.Wheel) {
		clk := loopClock()
		defer clk.Close()
		sleep := clock.NewSleeper(clk)
		inbox := make(chan struct{}, 1)
		wait := func(at time.Time) {
			sleep.Reset(max(at.Sub(clk.Now()), 0))
			select {
			case <-inbox:
			default:
				sleep.Wait()
			}
		}
		fireBatches(b, w, keys, slack, late, clk.Now, wait)
		endCPU() // before the clock's descriptor is released
	}
}

// BenchmarkPushFireLateness is the precision each column of the real-time
// rows buys with its CPU: the same batches at 1,000 pending, each
// deadline's lateness (fired less due) as p50 and p99 in µs, and the
// wheel's wakes per batch of 1,024. The wheel fires with the daemon's
// timer slack (a tick), and, in the -slack0 rows, with none (every
// deadline at its own instant, the rule before timer slack). The
// runtime's callbacks read the clock to know it (a closure a timer), so
// this benchmark's CPU is not the table's; it is not in the table's rows.
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
	for _, c := range []struct {
		name  string
		drive func(keys []string, slack time.Duration, late *[]time.Duration) func(b *testing.B, w *deadlines.Wheel)
		slack time.Duration
	}{
		{"wheel-runtimetimer", pushFireReal, slack},
		{"wheel-loopclock", pushFireLoop, slack},
		{"wheel-runtimetimer-slack0", pushFireReal, 0},
		{"wheel-loopclock-slack0", pushFireLoop, 0},
	} {
		b.Run(c.name, func(b *testing.B) {
			var late []time.Duration
			c.drive(warmKeys, c.slack, &late)(b, pending(time.Now()))
			report(b, late)
		})
	}
}
