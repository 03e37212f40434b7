package wakes

import (
	"context"
	"time"

	ob "github.com/wakewheel/wakewheel/obligations"
)

// PostBatch posts each obligation as Post does, in the order given and
// under one lock: they take their lanes' sequence numbers in that order
// and share one unit of the grouped commit. It returns once all of them
// are durable. errs[i] is the error of obs[i] alone (a rejected one stores
// nothing); out[i] is the obligation as stored, Duplicate set for a
// re-posted id. A fleet home imports forwarded posts through it.
func (s *Service) PostBatch(ctx context.Context, obs []ob.Obligation, create bool) (out []ob.Obligation, errs []error) {
	return s.postAll(ctx, obs, func(int) bool { return create })
}

// PostEach is PostBatch with create chosen per post (create[i] for
// obs[i]): the posts a post stream read at once, each as its client sent
// it. One mutex, one pipeline unit and one wait serve them all.
func (s *Service) PostEach(ctx context.Context, obs []ob.Obligation, create []bool) (out []ob.Obligation, errs []error) {
	return s.postAll(ctx, obs, func(i int) bool { return create[i] })
}

// postAll posts obs in order under one lock; create(i) says whether obs[i]
// may open its lane. The effects of every accepted post make one item, in
// order (itemOfAll: one store write at the most, one ticket); a
// duplicate's answer waits on the same item, or on a barrier when nothing
// is written, so it is given once its original is durable.
func (s *Service) postAll(ctx context.Context, obs []ob.Obligation, create func(int) bool) (out []ob.Obligation, errs []error) {
	out, errs = make([]ob.Obligation, len(obs)), make([]error, len(obs))
	effs := make([]ob.Effects, 0, len(obs))
	err := s.change(ctx, func(now time.Time) (*item, error) {
		for i, o := range obs {
			got, eff, err := s.postLocked(o, create(i), now)
			out[i], errs[i] = got, err
			if err == nil && !eff.Empty() {
				effs = append(effs, eff)
			}
		}
		if len(effs) == 0 { // duplicates and refusals only: answered once what is before them is durable
			return s.pipe.barrier(), nil
		}
		return s.pipe.enqueue(s.itemOfAll(effs)), nil
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
