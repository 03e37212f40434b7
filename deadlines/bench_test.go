package deadlines

import (
	"fmt"
	"runtime"
	"sync"
	"testing"
	"time"
)

// The benchmarks compare the wheel with Go's runtime timers (time.AfterFunc)
// holding the same number of pending deadlines far in the future. Keys are
// made before the clock starts, so key formatting is not measured.
//
// Fresh keys (not pending) come from a working set of 4096, as a scheduler's
// roots, lanes and leases would. BenchmarkPushCancelColdKeys cycles through
// 65536 instead, so at 1M pending each push misses the cache (and TLB) on
// the index: the wheel's worst case, which the runtime's heap, appending
// at its end, does not have.

var benchSizes = []int{1_000, 100_000, 1_000_000}

// benchStart is a multiple of 64^6 ms, so the wheel's current tick has zero
// digits below level 6 and the pending deadlines (a month out, in level 5)
// do not cascade while a benchmark moves time forward by hours.
var benchStart = time.UnixMilli(27 << 36)

const pendingHorizon = 30 * 24 * time.Hour

var (
	pendingKeys = makeKeys("pending", benchSizes[len(benchSizes)-1])
	freshKeys   = makeKeys("fresh", 1<<12)
	coldKeys    = makeKeys("cold", 1<<16)
)

// pendingWheel returns a wheel with n deadlines a month out.
func pendingWheel(n int) *Wheel {
	w := NewWheel(time.Millisecond, benchStart)
	for i, k := range pendingKeys[:n] {
		w.Push(k, "reconcile", benchStart.Add(pendingHorizon+time.Duration(i)*time.Microsecond), nil)
	}
	return w
}

// pendingTimers starts n runtime timers a month out, each to call f.
func pendingTimers(n int, f func()) []*time.Timer {
	ts := make([]*time.Timer, n)
	for i := range ts {
		ts[i] = time.AfterFunc(pendingHorizon+time.Duration(i)*time.Microsecond, f)
	}
	return ts
}

func stopAll(ts []*time.Timer) {
	for _, t := range ts {
		t.Stop()
	}
}

// benchBoth runs wheel/N then runtime/N sub-benchmarks, each with N pending.
// The pending set is made once per sub-benchmark, on its first run.
func benchBoth(b *testing.B, wheel func(*testing.B, *Wheel), std func(*testing.B)) {
	for _, n := range benchSizes {
		var w *Wheel
		b.Run(fmt.Sprintf("wheel/%d", n), func(b *testing.B) {
			if w == nil {
				w = pendingWheel(n)
				runtime.GC() // the setup's garbage, before the clock starts
			}
			wheel(b, w)
		})
	}
	for _, n := range benchSizes {
		var ts []*time.Timer
		b.Run(fmt.Sprintf("runtime/%d", n), func(b *testing.B) {
			if ts == nil {
				ts = pendingTimers(n, func() {})
				runtime.GC() // the setup's garbage, before the clock starts
			}
			std(b)
		})
		stopAll(ts)
	}
}

// BenchmarkPushCancel: create a deadline for a key that is not pending, and
// cancel it; time.AfterFunc and Stop.
func BenchmarkPushCancel(b *testing.B) {
	benchBoth(b, func(b *testing.B, w *Wheel) { pushCancel(b, w, freshKeys) }, func(b *testing.B) {
		f := func() {}
		b.ReportAllocs()
		for b.Loop() {
			time.AfterFunc(time.Hour, f).Stop()
		}
	})
}

// BenchmarkPushCancelColdKeys is BenchmarkPushCancel/wheel with 65536 fresh
// keys in turn.
func BenchmarkPushCancelColdKeys(b *testing.B) {
	for _, n := range benchSizes {
		var w *Wheel
		b.Run(fmt.Sprintf("wheel/%d", n), func(b *testing.B) {
			if w == nil {
				w = pendingWheel(n)
				runtime.GC()
			}
			pushCancel(b, w, coldKeys)
		})
	}
}

func pushCancel(b *testing.B, w *Wheel, keys []string) {
	at := benchStart.Add(500 * time.Millisecond)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		k := keys[i&(len(keys)-1)]
		w.Push(k, "burst", at, nil)
		w.Cancel(k)
	}
}

// BenchmarkExtend: slide a pending deadline by a little each time, as a
// burst of file events does; Timer.Reset.
func BenchmarkExtend(b *testing.B) {
	benchBoth(b, func(b *testing.B, w *Wheel) {
		now := benchStart
		w.Extend("burst/bench", "burst", now, 500*time.Millisecond, 1000*time.Hour)
		b.ReportAllocs()
		for b.Loop() {
			now = now.Add(time.Microsecond)
			w.Extend("burst/bench", "burst", now, 500*time.Millisecond, 1000*time.Hour)
		}
		w.Cancel("burst/bench")
	}, func(b *testing.B) {
		t := time.AfterFunc(time.Hour, func() {})
		b.ReportAllocs()
		for b.Loop() {
			t.Reset(time.Hour)
		}
		t.Stop()
	})
}

// BenchmarkPushFire: push a deadline 1 to 50 ms out and advance the wheel
// until it fires; an AfterFunc that fires, waited for on a channel.
func BenchmarkPushFire(b *testing.B) {
	benchBoth(b, func(b *testing.B, w *Wheel) {
		now := w.tickTime(w.cur) // continue where the previous run left the wheel
		var due []Deadline
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			k := freshKeys[i&(len(freshKeys)-1)]
			w.Push(k, "burst", now.Add(time.Duration(i%50+1)*time.Millisecond+123*time.Microsecond), nil)
			for due = due[:0]; len(due) == 0; {
				now, _ = w.Next()
				due = w.Advance(now, due)
			}
		}
	}, func(b *testing.B) {
		fired := make(chan struct{}, 1)
		f := func() { fired <- struct{}{} }
		b.ReportAllocs()
		for b.Loop() {
			time.AfterFunc(0, f)
			<-fired
		}
	})
}

// BenchmarkMemory reports the heap bytes per pending deadline, keys
// included; and per pending runtime timer.
func BenchmarkMemory(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("wheel/%d", n), func(b *testing.B) {
			var per float64
			for b.Loop() {
				per = bytesPerDeadline("burst/root", n)
			}
			b.ReportMetric(per, "bytes/deadline")
		})
	}
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("runtime/%d", n), func(b *testing.B) {
			var per float64
			var fired sync.WaitGroup
			for b.Loop() {
				before := heapAlloc()
				ts := pendingTimers(n, fired.Done)
				per = float64(heapAlloc()-before) / float64(n)
				// Fire them all: a stopped timer lingers in the runtime's
				// heap and would skew the next measurement.
				fired.Add(n)
				for _, t := range ts {
					t.Reset(0)
				}
				fired.Wait()
			}
			b.ReportMetric(per, "bytes/timer")
		})
	}
}
