package wakes

import (
	"context"
	"errors"

	ob "github.com/wakewheel/wakewheel/obligations"
	"github.com/wakewheel/wakewheel/scheduler"
)

// Handler is the action of kind obligations.RedeliverKind: the fallback
// re-wake of redeliver/<lane>/<class>. It re-wakes the lane when the class
// still holds unconsumed work (the state drops the firing otherwise), and
// returns once the re-wake's deadline is re-armed and the wake delivered.
//
// A deadline for a lane or key the state does not know (a store restored
// without its obligations) is dropped with a warning: there is nothing to
// wake for. A firing cut short by shutdown is retried, so it runs again
// after the next start.
func (s *Service) Handler() scheduler.Handler {
	return func(ctx context.Context, f scheduler.Firing) scheduler.Outcome {
		// Fire's deadline mutations go through the runner: wait until it is attached.
		if s.attachedRunner(ctx.Done()) == nil {
			return scheduler.RetryLater(ctx.Err())
		}
		err := s.Fire(ctx, f.Deadline.Key)
		switch {
		case err == nil:
			return scheduler.Succeeded()
		case errors.Is(err, ob.ErrUnknownLane), errors.Is(err, ob.ErrUnknownKey), errors.Is(err, ob.ErrBadLane):
			s.log.Warn().Err(err).Str("key", f.Deadline.Key).Msg("dropping a redeliver deadline for nothing this daemon holds")
			return scheduler.Succeeded()
		default:
			return scheduler.RetryLater(err)
		}
	}
}
