//go:build !linux

package clock

// pollSleeper has no implementation here: Polled makes sleepers on runtime
// timers.
type pollSleeper struct{ Sleeper }

func (*pollSleeper) close() {}

// newPollSleeper reports that no poller sleeper exists on this system;
// that is the plan, not a failure, so there is no error to log.
func newPollSleeper() (*pollSleeper, error) { return nil, nil }
