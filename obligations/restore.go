package obligations

import (
	"cmp"
	"fmt"
	"slices"
	"time"
)

// Restore rebuilds a State from persisted records (in any order) at
// startup. It returns the deadline mutations that re-derive the fallback
// re-wakes, for a runner that lost some of its persisted deadlines: for
// every lane and class with unconsumed obligations, a push ("no later
// than", so a reloaded earlier deadline is kept) of redeliver/<lane>/<class>
// to now+Cadence, pulled in to the class's oldest unconsumed obligation's
// post time + SLO when that is sooner (but not before now). The last wake
// time is not persisted, so the SLO is counted from the post.
// No wake is emitted: waiters died with the old process, and a new `wait`
// on a lane with work returns at once.
//
// Idempotency ids come back with their obligations, so a re-post after a
// restart is still a duplicate. Wake ids are derived from the head, so a
// redelivered wake after a restart keeps its id.
//
// Records that contradict each other (a sequence gap, two obligations with
// one seq or one id, cursors past the head) give an error wrapping
// ErrCorrupt, naming the lane; nothing is guessed.
func Restore(p Policies, records []Record, now time.Time) (*State, Effects, error) {
	s, err := New(p)
	if err != nil {
		return nil, Effects{}, err
	}
	get := func(name string) *lane {
		l := s.lanes[name]
		if l == nil {
			l = newLane(name)
			s.lanes[name] = l
		}
		return l
	}
	byLane := map[string][]Obligation{}
	for i := range records {
		r := &records[i]
		if err := ValidateLane(r.Lane()); err != nil {
			return nil, Effects{}, fmt.Errorf("%w: record %d: %w", ErrCorrupt, i, err)
		}
		l := get(r.Lane())
		switch r.Kind {
		case RecordObligation:
			o := r.Obligation
			if !o.Class.Valid() || o.Seq == 0 {
				return nil, Effects{}, fmt.Errorf("%w: lane %s: obligation record %d has class %q, seq %d",
					ErrCorrupt, l.name, i, o.Class, o.Seq)
			}
			o.Duplicate = false
			byLane[l.name] = append(byLane[l.name], o)
		case RecordCursor:
			l.received = max(l.received, r.Cursor.Received)
			l.consumed = max(l.consumed, r.Cursor.Consumed)
		case RecordCheckpoint:
			if l.parked == nil || r.Checkpoint.At.After(l.parked.At) {
				cp := r.Checkpoint
				l.parked = &cp
			}
		case RecordCompaction:
			l.base = max(l.base, r.Compaction.Base)
			l.tombSince = r.Compaction.TombSince
		case RecordTombstone:
			// Tombstones stay in the store; Absorb reads them one by one.
		default:
			return nil, Effects{}, fmt.Errorf("%w: record %d has kind %s", ErrCorrupt, i, r.Kind)
		}
	}
	var eff Effects
	for _, name := range s.laneNames() {
		l := s.lanes[name]
		if err := l.load(byLane[name], now); err != nil {
			return nil, Effects{}, err
		}
		oldest := l.oldestUnconsumed()
		for i, c := range Classes {
			if l.unconsumed[i] == 0 {
				continue
			}
			at := now.Add(s.pol[i].Cadence)
			if bound := oldest[i].Add(s.pol[i].SLO); bound.Before(at) {
				at = bound
			}
			if at.Before(now) {
				at = now
			}
			eff.push(name, c, at)
		}
	}
	return s, eff, nil
}

// load installs obs (any order, exact duplicates allowed) into a lane whose
// cursors are already set, and checks the lane's invariants.
func (l *lane) load(obs []Obligation, now time.Time) error {
	slices.SortStableFunc(obs, func(a, b Obligation) int { return cmp.Compare(a.Seq, b.Seq) })
	if l.base > l.consumed {
		return fmt.Errorf("%w: lane %s: compacted up to %d but consumed only %d", ErrCorrupt, l.name, l.base, l.consumed)
	}
	for _, o := range obs {
		if o.Seq <= l.base {
			continue // compacted; a record left over is harmless
		}
		if n := len(l.obs); n > 0 && o.Seq == l.head() && o == l.obs[n-1] {
			continue // the same record twice
		}
		if o.Seq != l.head()+1 {
			if o.Seq <= l.head() {
				return fmt.Errorf("%w: lane %s: two different obligations with seq %d", ErrCorrupt, l.name, o.Seq)
			}
			return fmt.Errorf("%w: lane %s: obligations %d..%d are missing", ErrCorrupt, l.name, l.head()+1, o.Seq-1)
		}
		if prev, dup := l.ids[o.ID]; dup {
			return fmt.Errorf("%w: lane %s: id %q is used by seq %d and %d", ErrCorrupt, l.name, o.ID, prev, o.Seq)
		}
		l.obs = append(l.obs, o)
		l.ids[o.ID] = o.Seq
	}
	if l.consumed > l.received || l.received > l.head() {
		return fmt.Errorf("%w: lane %s: cursors consumed %d, received %d, but the head is %d",
			ErrCorrupt, l.name, l.consumed, l.received, l.head())
	}
	if cp := l.parked; cp != nil && (cp.Consumed > l.consumed || cp.Head > l.head()) {
		return fmt.Errorf("%w: lane %s: checkpoint (consumed %d, head %d) is ahead of the lane (consumed %d, head %d)",
			ErrCorrupt, l.name, cp.Consumed, cp.Head, l.consumed, l.head())
	}
	for seq := l.consumed + 1; seq <= l.head(); seq++ {
		l.unconsumed[l.ob(seq).Class.index()]++
	}
	if l.consumed > l.base {
		// When the acks happened is not persisted: their retention counts
		// from the restore (it keeps obligations longer, never shorter).
		l.marks = []ackMark{{upto: l.consumed, at: now}}
	}
	return nil
}

// oldestUnconsumed returns, per class, when its oldest unconsumed
// obligation was posted (zero when there is none).
func (l *lane) oldestUnconsumed() [numClasses]time.Time {
	var out [numClasses]time.Time
	for seq := l.consumed + 1; seq <= l.head(); seq++ {
		o := l.ob(seq)
		if i := o.Class.index(); out[i].IsZero() {
			out[i] = o.Posted
		}
	}
	return out
}
