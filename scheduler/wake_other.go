//go:build !linux

package scheduler

import (
	"time"

	"github.com/wakewheel/wakewheel/internal/clock"
)

// canSleepPrecisely is false here: the waker uses the clock's timer alone.
const canSleepPrecisely = false

// sleepUntil waits for t on the clock's timer (the waker does not call it
// on this system).
func sleepUntil(clk clock.Clock, t time.Time) time.Time {
	<-clk.NewTimer(t.Sub(clk.Now())).C()
	return clk.Now()
}
