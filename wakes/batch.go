package wakes

import (
	"context"
	"time"

	ob "github.com/wakewheel/wakewheel/obligations"
)

// PostBatch posts each obligation as Post does, in the order given and
// under one lock: they take their lanes' sequence numbers in that order
// and share grouped commits. It returns once all of them are durable.
// errs[i] is the error of obs[i] alone (a rejected one stores nothing);
// out[i] is the obligation as stored, Duplicate set for a re-posted id.
// A fleet home imports forwarded posts through it.
func (s *Service) PostBatch(ctx context.Context, obs []ob.Obligation, create bool) (out []ob.Obligation, errs []error) {
	out, errs = make([]ob.Obligation, len(obs)), make([]error, len(obs))
	err := s.change(ctx, func(now time.Time) (*item, error) {
		for i, o := range obs {
			out[i], _, errs[i] = s.postLocked(o, create, now)
		}
		// Everything enqueued above is done when the barrier is: the
		// pipeline commits in queue order, and a failed write fails what
		// follows it.
		return s.pipe.barrier(), nil
	})
	if err != nil {
		for i := range errs {
			if errs[i] == nil {
				errs[i] = err
			}
		}
	}
	return out, errs
}
