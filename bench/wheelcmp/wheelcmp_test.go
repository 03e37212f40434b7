package wheelcmp

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/RussellLuo/timingwheel"

	"github.com/wakewheel/wakewheel/deadlines"
)

// See doc.go for what each benchmark measures.
//
//	cd bench/wheelcmp && go test -run '^$' -bench . -count 3

var sizes = []int{1_000, 100_000, 1_000_000}

// start is a multiple of 64^6 ms, so the wheel's pending deadlines (a month
// out) do not cascade while a benchmark moves its time forward.
var start = time.UnixMilli(27 << 36)

const (
	horizon = 30 * 24 * time.Hour
	warm    = 1 << 12
	cold    = 1 << 16
	batch   = 1024
)

var (
	pendingKeys = makeKeys("pending", sizes[len(sizes)-1])
	warmKeys    = makeKeys("warm", warm)
	coldKeys    = makeKeys("cold", cold)
	// Equal keys in strings of their own: a caller names a pending key
	// again with a string it built anew, not the one the wheel holds, so
	// the wheel compares bytes (the same string would compare by pointer).
	warmAgain = makeKeys("warm", warm)
	coldAgain = makeKeys("cold", cold)
)

func makeKeys(prefix string, n int) []string {
	ks := make([]string, n)
	for i := range ks {
		ks[i] = fmt.Sprintf("%s/%07d", prefix, i)
	}
	return ks
}

func nop() {}

// cpu is the process's user+system CPU time so far.
func cpu() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// The CPU count of the running benchmark: measure starts it before the body
// and ends it after; a body with setup or teardown of its own restarts it
// after the setup (startCPU) and ends it before the teardown (endCPU).
var cpuStart, cpuEnd time.Duration

func startCPU() { cpuStart, cpuEnd = cpu(), 0 }
func endCPU()   { cpuEnd = cpu() }

// measure runs body and reports cpu-ns/op besides ns/op.
func measure(b *testing.B, body func(b *testing.B)) {
	runtime.GC()
	b.ReportAllocs()
	startCPU()
	body(b)
	if cpuEnd == 0 {
		endCPU()
	}
	b.ReportMetric(float64(cpuEnd-cpuStart)/float64(b.N), "cpu-ns/op")
}

// three runs op on the wheel, the runtime and RussellLuo with n pending,
// each set up afresh and torn down after its sub-benchmark. The three take
// turns at each N, so that the baselines run beside their subject while
// the neighbours' load changes.
func three(b *testing.B, wheel func(b *testing.B, w *deadlines.Wheel), std func(b *testing.B), rl func(b *testing.B, tw *timingwheel.TimingWheel)) {
	four(b, wheel, std, nil, rl)
}

// keyedTimers is how a user of the runtime's timers names them by string
// key: a map from the key to its timer.
type keyedTimers = map[string]*time.Timer

// four is three with a fourth column between the runtime and RussellLuo
// when keyed is not nil: the runtime's timers held in a keyedTimers of the
// n pending keys, the job the wheel does (a caller names a deadline by its
// key, not by a timer it kept). The map is used without a lock: the
// timers it holds never fire during a measurement, so this column is the
// least a keyed user of the runtime pays (one whose callbacks delete their
// keys would also lock the map).
func four(b *testing.B, wheel func(b *testing.B, w *deadlines.Wheel), std func(b *testing.B), keyed func(b *testing.B, m keyedTimers), rl func(b *testing.B, tw *timingwheel.TimingWheel)) {
	fourFrom(b, func() time.Time { return start }, wheel, std, keyed, rl)
}

// fourFrom is four with the wheel started at origin() (start, or the
// clock's now for a wheel driven in real time).
func fourFrom(b *testing.B, origin func() time.Time, wheel func(b *testing.B, w *deadlines.Wheel), std func(b *testing.B), keyed func(b *testing.B, m keyedTimers), rl func(b *testing.B, tw *timingwheel.TimingWheel)) {
	for _, n := range sizes {
		b.Run(fmt.Sprintf("wheel/%d", n), func(b *testing.B) {
			at := origin()
			w := deadlines.NewWheel(time.Millisecond, at)
			for i, k := range pendingKeys[:n] {
				w.Push(k, "pending", at.Add(horizon+time.Duration(i)*time.Microsecond), nil)
			}
			measure(b, func(b *testing.B) { wheel(b, w) })
		})
		b.Run(fmt.Sprintf("runtime/%d", n), func(b *testing.B) {
			ts := make([]*time.Timer, n)
			for i := range ts {
				ts[i] = time.AfterFunc(horizon+time.Duration(i)*time.Microsecond, nop)
			}
			defer func() {
				for _, t := range ts {
					t.Stop()
				}
			}()
			measure(b, std)
		})
		if keyed != nil {
			b.Run(fmt.Sprintf("runtimemap/%d", n), func(b *testing.B) {
				m := make(keyedTimers, n)
				for i, k := range pendingKeys[:n] {
					m[k] = time.AfterFunc(horizon+time.Duration(i)*time.Microsecond, nop)
				}
				defer func() {
					for _, t := range m {
						t.Stop()
					}
				}()
				measure(b, func(b *testing.B) { keyed(b, m) })
			})
		}
		b.Run(fmt.Sprintf("russellluo/%d", n), func(b *testing.B) {
			tw := timingwheel.NewTimingWheel(time.Millisecond, 64)
			tw.Start()
			defer tw.Stop()
			ts := make([]*timingwheel.Timer, n)
			for i := range ts {
				ts[i] = tw.AfterFunc(horizon+time.Duration(i)*time.Microsecond, nop)
			}
			defer func() {
				for _, t := range ts {
					t.Stop()
				}
			}()
			measure(b, func(b *testing.B) { rl(b, tw) })
		})
	}
}

// pushCancel pushes keys[j] and cancels it by again[j], an equal string.
func pushCancel(keys, again []string) func(b *testing.B, w *deadlines.Wheel) {
	return func(b *testing.B, w *deadlines.Wheel) {
		at := start.Add(500 * time.Millisecond)
		for i := 0; b.Loop(); i++ {
			j := i & (len(keys) - 1)
			w.Push(keys[j], "burst", at, nil)
			w.Cancel(again[j])
		}
	}
}

func stdPushCancel(b *testing.B) {
	for b.Loop() {
		time.AfterFunc(time.Hour, nop).Stop()
	}
}

// keyedPushCancel is pushCancel with the runtime's timers by key: the
// timer made and stored under keys[j], then found by again[j], stopped and
// deleted.
func keyedPushCancel(keys, again []string) func(b *testing.B, m keyedTimers) {
	return func(b *testing.B, m keyedTimers) {
		for i := 0; b.Loop(); i++ {
			j := i & (len(keys) - 1)
			m[keys[j]] = time.AfterFunc(time.Hour, nop)
			if t, ok := m[again[j]]; ok {
				t.Stop()
				delete(m, again[j])
			}
		}
	}
}

func rlPushCancel(b *testing.B, tw *timingwheel.TimingWheel) {
	for b.Loop() {
		tw.AfterFunc(time.Hour, nop).Stop()
	}
}

func BenchmarkPushCancelWarm(b *testing.B) {
	four(b, pushCancel(warmKeys, warmAgain), stdPushCancel, keyedPushCancel(warmKeys, warmAgain), rlPushCancel)
}
func BenchmarkPushCancelCold(b *testing.B) {
	four(b, pushCancel(coldKeys, coldAgain), stdPushCancel, keyedPushCancel(coldKeys, coldAgain), rlPushCancel)
}

// rearm re-arms len(keys) pending keys, visiting them in the order of
// order (indices into keys, as long as keys); the wheel's keys are pushed
// as keys and re-armed as again, equal strings of their own.
func rearm(keys, again []string, order []int) (func(b *testing.B, w *deadlines.Wheel), func(b *testing.B), func(b *testing.B, m keyedTimers), func(b *testing.B, tw *timingwheel.TimingWheel)) {
	wheel := func(b *testing.B, w *deadlines.Wheel) {
		now := start
		for _, k := range keys {
			w.Extend(k, "burst", now, time.Hour, 1000*time.Hour)
		}
		startCPU()
		for i := 0; b.Loop(); i++ {
			now = now.Add(time.Microsecond)
			w.Extend(again[order[i&(len(keys)-1)]], "burst", now, time.Hour, 1000*time.Hour)
		}
		endCPU()
	}
	std := func(b *testing.B) {
		ts := make([]*time.Timer, len(keys))
		for i := range ts {
			ts[i] = time.AfterFunc(time.Hour, nop)
		}
		defer func() {
			for _, t := range ts {
				t.Stop()
			}
		}()
		startCPU()
		for i := 0; b.Loop(); i++ {
			ts[order[i&(len(ts)-1)]].Reset(time.Hour + time.Duration(i)*time.Nanosecond)
		}
		endCPU()
	}
	// keyed re-arms the timer found by the key's equal string, as the
	// wheel's Extend is handed one.
	keyed := func(b *testing.B, m keyedTimers) {
		for _, k := range keys {
			m[k] = time.AfterFunc(time.Hour, nop)
		}
		defer func() {
			for _, k := range keys {
				m[k].Stop()
				delete(m, k)
			}
		}()
		startCPU()
		for i := 0; b.Loop(); i++ {
			m[again[order[i&(len(keys)-1)]]].Reset(time.Hour + time.Duration(i)*time.Nanosecond)
		}
		endCPU()
	}
	rl := func(b *testing.B, tw *timingwheel.TimingWheel) {
		ts := make([]*timingwheel.Timer, len(keys))
		for i := range ts {
			ts[i] = tw.AfterFunc(time.Hour, nop)
		}
		defer func() {
			for _, t := range ts {
				t.Stop()
			}
		}()
		startCPU()
		for i := 0; b.Loop(); i++ {
			j := order[i&(len(ts)-1)]
			ts[j].Stop() // it has no reset
			ts[j] = tw.AfterFunc(time.Hour, nop)
		}
		endCPU()
	}
	return wheel, std, keyed, rl
}

// BenchmarkReArm4096 and BenchmarkReArm65536 visit the keys in their
// order: the runtime's timers (and the wheel's entries) were made in that
// order, so the hardware prefetcher streams them. The Shuffled variants
// visit the same keys in one fixed random order, the same for all three:
// what re-arming keys that arrive in no particular order costs.
func BenchmarkReArm4096(b *testing.B) {
	w, s, k, r := rearm(warmKeys, warmAgain, sequence(warm))
	four(b, w, s, k, r)
}

func BenchmarkReArm65536(b *testing.B) {
	w, s, k, r := rearm(coldKeys, coldAgain, sequence(cold))
	four(b, w, s, k, r)
}

func BenchmarkReArmShuffled4096(b *testing.B) {
	w, s, k, r := rearm(warmKeys, warmAgain, shuffled(warm))
	four(b, w, s, k, r)
}

func BenchmarkReArmShuffled65536(b *testing.B) {
	w, s, k, r := rearm(coldKeys, coldAgain, shuffled(cold))
	four(b, w, s, k, r)
}

func sequence(n int) []int {
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	return order
}

func shuffled(n int) []int {
	order := sequence(n)
	rand.New(rand.NewPCG(1, 2)).Shuffle(n, func(i, j int) { order[i], order[j] = order[j], order[i] })
	return order
}

// BenchmarkPushFireWarm and BenchmarkPushFireCold: batches of 1,024
// timers due 1 to 16 ms out, pushed, then all fired; the wheel's keys come
// from a working set of 4,096, or of 65,536. The runtime and RussellLuo
// have no keys: their columns are the same operation.
func BenchmarkPushFireWarm(b *testing.B) { three(b, pushFire(warmKeys), stdPushFire, rlPushFire) }
func BenchmarkPushFireCold(b *testing.B) { three(b, pushFire(coldKeys), stdPushFire, rlPushFire) }

func pushFire(keys []string) func(b *testing.B, w *deadlines.Wheel) {
	return func(b *testing.B, w *deadlines.Wheel) {
		now := start
		var due []deadlines.Deadline
		pending := 0
		for i := 0; b.Loop(); i++ {
			w.Push(keys[i&(len(keys)-1)], "burst", now.Add(time.Duration(i%16+1)*time.Millisecond), nil)
			pending++
			if pending == batch {
				for pending > 0 {
					now, _ = w.Next()
					due = w.Advance(now, due[:0])
					pending -= len(due)
				}
			}
		}
		for pending > 0 {
			now, _ = w.Next()
			due = w.Advance(now, due[:0])
			pending -= len(due)
		}
	}
}

// BenchmarkPushFireRealWarm and BenchmarkPushFireRealCold are push+fire
// with the wheel driven in real time, as the scheduler's runner drives it:
// each push at the clock's now plus its delay, and after each batch the
// wheel waits on a runtime timer until its Wake (with the daemon's default
// timer slack, a tick) and advances to the clock's now, until the batch
// has fired. The runtime and RussellLuo fire in real time (each timer on
// the runtime's timer machinery, a callback goroutine each); in
// BenchmarkPushFireWarm and Cold the wheel's time is simulated and costs
// no wait. wakes/batch counts the turns per 1,024 deadlines.
func BenchmarkPushFireRealWarm(b *testing.B) {
	fourFrom(b, time.Now, pushFireReal(warmKeys, slack, nil), stdPushFire, nil, rlPushFire)
}
func BenchmarkPushFireRealCold(b *testing.B) {
	fourFrom(b, time.Now, pushFireReal(coldKeys, slack, nil), stdPushFire, nil, rlPushFire)
}

// slack is the timer slack the real-time rows fire with: the daemon's
// default, engine.timer_slack, one tick of the wheel (deadlines.Wheel.Wake).
const slack = time.Millisecond

func pushFireReal(keys []string, slack time.Duration, late *[]time.Duration) func(b *testing.B, w *deadlines.Wheel) {
	return func(b *testing.B, w *deadlines.Wheel) {
		t := time.NewTimer(time.Hour)
		defer t.Stop()
		wait := func(at time.Time) {
			if d := time.Until(at); d > 0 {
				t.Reset(d)
				<-t.C
			}
		}
		fireBatches(b, w, keys, slack, late, time.Now, wait)
	}
}

// fireBatches pushes batches of 1,024 deadlines due 1 to 16 ms out and
// fires each batch as the runner's loop does: wait until the wheel's
// Wake(slack), Advance to the clock's now, again until the batch has
// fired. When late is not nil it gets the lateness of every fired
// deadline (the now of the Advance that fired it, less its At). It reports
// the turns of the loop per batch as wakes/batch.
func fireBatches(b *testing.B, w *deadlines.Wheel, keys []string, slack time.Duration, late *[]time.Duration,
	now func() time.Time, wait func(at time.Time)) {
	var due []deadlines.Deadline
	pending, wakes, batches := 0, 0, 0
	fire := func() {
		batches++
		for pending > 0 {
			at, _ := w.Wake(slack)
			wait(at)
			wakes++
			t := now()
			due = w.Advance(t, due[:0])
			pending -= len(due)
			if late != nil {
				for _, d := range due {
					*late = append(*late, t.Sub(d.At))
				}
			}
		}
	}
	for i := 0; b.Loop(); i++ {
		w.Push(keys[i&(len(keys)-1)], "burst", now().Add(time.Duration(i%16+1)*time.Millisecond), nil)
		if pending++; pending == batch {
			fire()
		}
	}
	fire()
	b.ReportMetric(float64(wakes)/float64(batches), "wakes/batch")
}

func stdPushFire(b *testing.B) {
	var wg sync.WaitGroup
	f := func() { wg.Done() }
	for i := 0; b.Loop(); i++ {
		wg.Add(1)
		time.AfterFunc(time.Duration(i%16+1)*time.Millisecond, f)
		if i%batch == batch-1 {
			wg.Wait()
		}
	}
	wg.Wait()
}

func rlPushFire(b *testing.B, tw *timingwheel.TimingWheel) {
	var wg sync.WaitGroup
	f := func() { wg.Done() }
	for i := 0; b.Loop(); i++ {
		wg.Add(1)
		tw.AfterFunc(time.Duration(i%16+1)*time.Millisecond, f)
		if i%batch == batch-1 {
			wg.Wait()
		}
	}
	wg.Wait()
}
