//go:build !linux

package clock

import "time"

// pollTimer has no implementation here: Polled makes runtime timers.
type pollTimer struct{ Timer }

func (*pollTimer) close() {}

// newPollTimer reports that no poller timer exists on this system; that is
// the plan, not a failure, so there is no error to log.
func newPollTimer(time.Duration) (*pollTimer, error) { return nil, nil }

// pollSleeper has no implementation here: Polled makes sleepers on runtime
// timers.
type pollSleeper struct{ Sleeper }

func (*pollSleeper) close() {}

func newPollSleeper() (*pollSleeper, error) { return nil, nil }
