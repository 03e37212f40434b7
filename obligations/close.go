package obligations

import (
	"fmt"
	"time"
)

// SetMaxLanes caps the number of lanes: once n lanes exist, Open and a
// Post that would create a lane fail with ErrTooManyLanes. Lanes that
// exist are kept when the cap is lowered below their number. n <= 0 means
// no cap.
func (s *State) SetMaxLanes(n int) { s.maxLanes = max(n, 0) }

// MaxLanes returns the cap in force (0: none).
func (s *State) MaxLanes() int { return s.maxLanes }

// roomForLane refuses a new lane when the cap is reached.
func (s *State) roomForLane(name string) error {
	if s.maxLanes == 0 || len(s.lanes) < s.maxLanes {
		return nil
	}
	return fmt.Errorf("%w: lane %q would be lane %d, and at most %d may exist; close lanes nobody reads, or raise obligations.max_lanes",
		ErrTooManyLanes, name, len(s.lanes)+1, s.maxLanes)
}

// Exists returns nil when the lane exists, else an error wrapping
// ErrBadLane or ErrUnknownLane that says so.
func (s *State) Exists(name string) error {
	_, err := s.lane(name)
	return err
}

// Close removes a lane: its obligations, cursors, checkpoint and
// compaction record are deleted, its fallback re-wakes cancelled, and its
// idempotency ids forgotten (a lane opened again under the name starts at
// seq 1). Its tombstones are records only (retention.go): the caller
// deletes them (a Sweep of the lane with no time bound).
//
// A lane that holds unconsumed obligations is refused with ErrLaneBusy
// unless force is set; a forced close discards them, and its ledger entry
// says so (Seq is the head, Action "forced (N unconsumed discarded)").
func (s *State) Close(name string, force bool, now time.Time) (Effects, error) {
	l, err := s.lane(name)
	if err != nil {
		return Effects{}, err
	}
	if n := l.pending(); n > 0 && !force {
		c := countsOf(l.unconsumed)
		return Effects{}, fmt.Errorf("%w: lane %s still holds %d unconsumed (human %d, peer %d, digest %d, alert %d); consume them first, or force the close to discard them",
			ErrLaneBusy, name, n, c.Human, c.Peer, c.Digest, c.Alert)
	}
	eff := Effects{Sync: true}
	for seq := l.base + 1; seq <= l.head(); seq++ {
		eff.Deletes = append(eff.Deletes, obligationRecord(*l.ob(seq)).Key())
	}
	eff.Deletes = append(eff.Deletes, cursorRecord(Cursor{Lane: name}).Key(), checkpointRecord(Checkpoint{Lane: name}).Key(),
		compactionRecord(Compaction{Lane: name}).Key())
	for _, c := range Classes {
		eff.cancel(name, c)
	}
	e := Entry{Kind: EntryClose, Lane: name, Seq: l.head(), At: now}
	if n := l.pending(); n > 0 {
		e.Action = fmt.Sprintf("forced (%d unconsumed discarded)", n)
	}
	eff.Ledger = append(eff.Ledger, e)
	delete(s.lanes, name)
	return eff, nil
}
