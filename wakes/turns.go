package wakes

import (
	"context"

	ob "github.com/wakewheel/wakewheel/obligations"
)

// Turn records an agent turn the product caused on lane (a hook block, a
// runner start, a pane prompt, an MCP wait that returned) in the ledger,
// with whether it found work. It is written without fsync: a turn is a
// cost measured, not an obligation.
func (s *Service) Turn(ctx context.Context, lane string, mode ob.TurnMode, wakeID string, work bool) error {
	if err := s.begin(); err != nil {
		return err
	}
	eff, err := s.st.Turn(lane, mode, wakeID, work, s.clock.Now())
	if err != nil {
		s.mu.Unlock()
		return err
	}
	t := s.commitLocked(eff)
	s.mu.Unlock()
	return t.wait(ctx)
}

// Deliver hands the lane's digest to its consumer now, without waiting:
// RECEIVED rises to the head (so the consumer may ack up to it) and the
// delivery is in the ledger once per wake id. A lane with nothing
// unconsumed answers a Noop digest and records nothing: the caller asked,
// nothing woke it. The digest is returned once its delivery is durable.
func (s *Service) Deliver(ctx context.Context, lane, who string) (ob.Digest, error) {
	if err := s.begin(); err != nil {
		return ob.Digest{}, err
	}
	d, err := s.st.Digest(lane, who, s.clock.Now())
	if err != nil || d.Noop {
		t := s.pipe.barrier()
		s.mu.Unlock()
		if err != nil {
			return ob.Digest{}, err
		}
		return d, t.wait(ctx)
	}
	d, eff, err := s.st.Deliver(lane, who, s.clock.Now())
	if err != nil {
		s.mu.Unlock()
		return ob.Digest{}, err
	}
	t := s.commitLocked(eff)
	s.countDeliveryLocked(lane, false)
	s.mu.Unlock()
	return d, t.wait(ctx)
}
