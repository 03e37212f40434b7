package wakes

import (
	"context"
	"time"

	ob "github.com/wakewheel/wakewheel/obligations"
)

// Turn records an agent turn the product caused on lane (a hook block, a
// runner start, a pane prompt, an MCP wait that returned) in the ledger,
// with whether it found work. It is written without fsync: a turn is a
// cost measured, not an obligation.
func (s *Service) Turn(ctx context.Context, lane string, mode ob.TurnMode, wakeID string, work bool) error {
	return s.change(ctx, func(now time.Time) (*item, error) {
		eff, err := s.st.Turn(lane, mode, wakeID, work, now)
		if err != nil {
			return nil, err
		}
		return s.commitLocked(eff), nil
	})
}

// Deliver hands the lane's digest to its consumer now, without waiting:
// RECEIVED rises to the head (so the consumer may ack up to it) and the
// delivery is in the ledger once per wake id. A lane with nothing
// unconsumed answers a Noop digest and records nothing: the caller asked,
// nothing woke it. The digest is returned once its delivery is durable.
func (s *Service) Deliver(ctx context.Context, lane, who string) (ob.Digest, error) {
	var d ob.Digest
	err := s.change(ctx, func(now time.Time) (*item, error) {
		var err error
		if d, err = s.st.Digest(lane, who, now); err != nil || d.Noop {
			return s.pipe.barrier(), err
		}
		var eff ob.Effects
		if d, eff, err = s.st.Deliver(lane, who, now); err != nil {
			return nil, err
		}
		s.countDeliveryLocked(lane, false)
		return s.settleLocked(eff), nil
	})
	return d, err
}
