package scheduler

import (
	"syscall"
	"time"

	"github.com/wakewheel/wakewheel/internal/clock"
)

const canSleepPrecisely = true

// sleepUntil blocks its goroutine's thread in nanosleep(2) until clk says
// t has come (the kernel's high-resolution timers, to its timer slack of
// 50 µs), again after a signal interrupts it, and returns the time it woke.
func sleepUntil(clk clock.Clock, t time.Time) time.Time {
	for {
		now := clk.Now()
		d := t.Sub(now)
		if d <= 0 {
			return now
		}
		ts := syscall.NsecToTimespec(int64(d))
		_ = syscall.Nanosleep(&ts, nil) // EINTR: the loop sleeps the rest
	}
}
