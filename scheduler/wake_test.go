package scheduler

import (
	"slices"
	"testing"
	"time"

	"github.com/wakewheel/wakewheel/internal/clock"
)

// Under the real clock the waker wakes the loop at the due time, never
// before it, and within its last stretch by a precise sleep: a runtime
// timer set for the same sub-millisecond waits, in the same run, is
// logged beside it (it wakes in whole milliseconds of the netpoller).
func TestWakerWakesAtTheDueTime(t *testing.T) {
	if !canSleepPrecisely {
		t.Skip("no precise sleep on this system")
	}
	w := newWaker(clock.Real{})
	if !w.precise {
		t.Fatal("the real clock's waker does not sleep precisely")
	}
	rt := time.NewTimer(time.Hour)
	var wakerLate, timerLate []time.Duration
	for i := range 200 {
		d := time.Duration(100+i*7%900) * time.Microsecond
		at := time.Now().Add(d)
		woke := <-w.arm(at, time.Until(at))
		w.woke()
		if now := time.Now(); woke.Before(at) || now.Before(at) {
			t.Fatalf("wait %d: woke %v before the due time", i, at.Sub(woke))
		}
		wakerLate = append(wakerLate, time.Since(at))
		at = time.Now().Add(d)
		rt.Reset(time.Until(at))
		<-rt.C
		timerLate = append(timerLate, time.Since(at))
	}
	slices.Sort(wakerLate)
	slices.Sort(timerLate)
	t.Logf("waits of 0.1-1 ms: waker late p50 %v p99 %v; a runtime timer p50 %v p99 %v",
		wakerLate[100], wakerLate[198], timerLate[100], timerLate[198])
}

// A due time further out than the last stretch goes to the clock's timer
// first; the same due time armed again reuses its sleeping goroutine; and
// a due time that keeps moving earlier starts at most maxSleepers of them.
func TestWakerBoundsItsSleepers(t *testing.T) {
	if !canSleepPrecisely {
		t.Skip("no precise sleep on this system")
	}
	w := newWaker(clock.Real{})
	at := time.Now().Add(time.Hour)
	if c := w.arm(at, time.Hour); c != w.timer.C() || w.c != nil {
		t.Fatal("a due time an hour out does not wait on the timer")
	}
	at = time.Now().Add(shortWait)
	first := w.arm(at, shortWait)
	if again := w.arm(at, shortWait-time.Microsecond); again != first {
		t.Fatal("the same due time armed again started another sleep")
	}
	for i := range 3 * maxSleepers {
		w.arm(at.Add(-time.Duration(i+1)*time.Microsecond), shortWait)
		if n := w.sleeping.Load(); n > maxSleepers {
			t.Fatalf("%d goroutines asleep, want at most %d", n, maxSleepers)
		}
	}
	for w.sleeping.Load() > 0 {
		time.Sleep(time.Millisecond)
	}
	// A fake clock's waker is its timer.
	f := clock.NewFake(time.Unix(0, 0))
	fw := newWaker(f)
	if fw.precise || fw.arm(time.Unix(0, 0).Add(time.Microsecond), time.Microsecond) != fw.timer.C() {
		t.Fatal("a fake clock's waker does not use the fake clock's timer")
	}
}
