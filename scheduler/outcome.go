package scheduler

import (
	"context"
	"time"

	"github.com/wakewheel/wakewheel/deadlines"
)

// Result names what an action's run came to.
type Result int

// The results an action can return.
const (
	Done     Result = iota // finished; the deadline is retired
	Retry                  // transient failure; run again after a bounded backoff
	Yield                  // someone else holds the ground (a lease); run again After
	Conflict               // optimistic-concurrency conflict; one immediate retry, then an alert
	Failure                // permanent failure; alerted and retired
)

func (r Result) String() string {
	switch r {
	case Done:
		return "done"
	case Retry:
		return "retry"
	case Yield:
		return "yield"
	case Conflict:
		return "conflict"
	case Failure:
		return "failure"
	}
	return "unknown"
}

// Outcome is what a handler returns.
type Outcome struct {
	Result Result
	After  time.Duration // for Yield: how long to wait before running again
	Err    error         // for Retry, Conflict and Failure: what went wrong
	Alert  string        // alert code to raise instead of the default one
}

// Succeeded is the Done outcome.
func Succeeded() Outcome { return Outcome{Result: Done} }

// RetryLater asks for another run after the runner's backoff.
func RetryLater(err error) Outcome { return Outcome{Result: Retry, Err: err} }

// YieldFor reschedules the action after d.
func YieldFor(d time.Duration) Outcome { return Outcome{Result: Yield, After: d} }

// Conflicted reports an optimistic-concurrency conflict. alert names the
// alert raised if the one retry conflicts again ("" for "<kind>_conflict").
func Conflicted(err error, alert string) Outcome {
	return Outcome{Result: Conflict, Err: err, Alert: alert}
}

// Failed reports a permanent failure.
func Failed(err error) Outcome { return Outcome{Result: Failure, Err: err} }

// Firing is one run of an action: the deadline that fell due, when the runner
// fired it, and which attempt this is (1 for the first run; retries and the
// conflict retry count up; a yield does not: waiting is not an attempt).
type Firing struct {
	Deadline deadlines.Deadline
	Now      time.Time
	Attempt  int
}

// Handler runs the action of one deadline kind. It should return promptly;
// long external work is supervised by the caller's own machinery. Errors and
// panics are turned into outcomes by the runner.
type Handler func(ctx context.Context, f Firing) Outcome
