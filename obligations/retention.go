package obligations

import (
	"fmt"
	"slices"
	"time"

	"github.com/wakewheel/wakewheel/deadlines"
)

// Retention: consumed obligations do not stay in memory and in the store
// forever. Keep after an ack consumed them, Compact drops them: their
// records are deleted, the lane's compaction record moves its base past
// them, and each leaves a small tombstone (lane, id, seq, class, times) so
// that a re-post of its id within DedupHorizon is still absorbed as a
// duplicate. Tombstones are not kept in the State: they are records only,
// looked up by the service when a post's id is not live (Absorb decides),
// except those of the latest compaction, held until the next one so that a
// post never races the write of a tombstone. The ledger is not touched: it
// holds no bodies, and its entries are all the safety report reads.
//
// Compaction is driven by one deadline, compact/obligations (CompactKey):
// every ack pushes it to its own retention's end, and every Compact
// re-arms it for the next due work (an ack's retention ending, a lane's
// tombstones passing the horizon), or cancels it when there is none. One
// Compact drops at most CompactBatch obligations, and re-arms at once when
// more are due, so one store batch stays small.

// Retention is how long consumed obligations and their ids are kept.
type Retention struct {
	// Keep is how long a consumed obligation stays after the ack that
	// consumed it; 0 keeps everything forever.
	Keep time.Duration
	// DedupHorizon is how long a compacted obligation's id is still
	// absorbed as a duplicate, counted from its compaction; 0 keeps no
	// tombstone.
	DedupHorizon time.Duration
}

// Registered defaults (configs: obligations.retention, obligations.dedup_horizon).
const (
	DefaultRetention    = 7 * 24 * time.Hour
	DefaultDedupHorizon = 30 * 24 * time.Hour
	// CompactBatch bounds the obligations one Compact drops.
	CompactBatch = 4096
)

// CompactKind is the kind of the compaction deadline, CompactKey its key.
const (
	CompactKind = "compact"
	CompactKey  = "compact/obligations"
)

// Tombstone is what remains of a compacted obligation: enough to answer a
// re-post of its id within the dedup horizon.
type Tombstone struct {
	Lane      string    `json:"lane"`
	ID        string    `json:"id"`
	Seq       uint64    `json:"seq"`
	Class     Class     `json:"class"`
	Posted    time.Time `json:"posted"`
	Compacted time.Time `json:"compacted"`
}

// Compaction is a lane's compaction record: obligations 1..Base are
// compacted; TombSince is when the oldest tombstone still kept was made
// (zero for none).
type Compaction struct {
	Lane      string    `json:"lane"`
	Base      uint64    `json:"base"`
	At        time.Time `json:"at"`
	TombSince time.Time `json:"tomb_since,omitzero"`
}

// Sweep asks the service to delete lane's tombstones compacted at or
// before Before, then to report the oldest left with Swept.
type Sweep struct {
	Lane   string
	Before time.Time
}

// ackMark is when an ack consumed a lane up to a seq.
type ackMark struct {
	upto uint64
	at   time.Time
}

// SetRetention puts r in force. It returns the effects that arm the
// compaction deadline for work already due under r.
func (s *State) SetRetention(r Retention, now time.Time) (Effects, error) {
	if r.Keep < 0 || r.DedupHorizon < 0 {
		return Effects{}, fmt.Errorf("%w: retention %v and dedup horizon %v must not be negative", ErrBadPolicy, r.Keep, r.DedupHorizon)
	}
	s.ret = r
	var eff Effects
	s.armCompaction(&eff, now)
	return eff, nil
}

// Retention returns the retention in force.
func (s *State) Retention() Retention { return s.ret }

// markAck records that an ack consumed l up to upto at now, and pushes
// the compaction deadline to its retention's end.
func (s *State) markAck(l *lane, upto uint64, now time.Time, eff *Effects) {
	if s.ret.Keep <= 0 {
		return
	}
	l.marks = append(l.marks, ackMark{upto: upto, at: now})
	eff.Deadlines = append(eff.Deadlines, deadlines.Mutation{Op: deadlines.OpPush, Key: CompactKey, Kind: CompactKind, At: now.Add(s.ret.Keep)})
}

// nextCompaction is when compaction next has work: the earliest end of an
// ack's retention or of a lane's oldest tombstone horizon.
func (s *State) nextCompaction() (time.Time, bool) {
	var next time.Time
	take := func(t time.Time) {
		if next.IsZero() || t.Before(next) {
			next = t
		}
	}
	for _, l := range s.lanes {
		if s.ret.Keep > 0 && len(l.marks) > 0 {
			take(l.marks[0].at.Add(s.ret.Keep))
		}
		if !l.tombSince.IsZero() {
			take(l.tombSince.Add(s.ret.DedupHorizon))
		}
	}
	return next, !next.IsZero()
}

func (s *State) armCompaction(eff *Effects, now time.Time) {
	next, ok := s.nextCompaction()
	if !ok {
		eff.Deadlines = append(eff.Deadlines, deadlines.Mutation{Op: deadlines.OpCancel, Key: CompactKey})
		return
	}
	eff.Deadlines = append(eff.Deadlines, deadlines.Mutation{Op: deadlines.OpReset, Key: CompactKey, Kind: CompactKind, At: maxTime(next, now)})
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// Compact drops, at now, the consumed obligations whose retention ended
// (at most CompactBatch), leaving tombstones, and asks for the sweeps of
// tombstones past the horizon. Its effects delete the obligation records
// (Deletes), write the tombstones and the lanes' compaction records, and
// re-arm the compaction deadline.
func (s *State) Compact(now time.Time) Effects {
	var eff Effects
	budget := CompactBatch
	for _, name := range s.laneNames() {
		l := s.lanes[name]
		l.recent = nil
		if budget > 0 && s.ret.Keep > 0 {
			budget -= s.compactLane(l, now, budget, &eff)
		}
		if !l.tombSince.IsZero() && !l.tombSince.Add(s.ret.DedupHorizon).After(now) {
			eff.Sweeps = append(eff.Sweeps, Sweep{Lane: name, Before: now.Add(-s.ret.DedupHorizon)})
		}
	}
	if budget <= 0 {
		eff.Deadlines = append(eff.Deadlines, deadlines.Mutation{Op: deadlines.OpReset, Key: CompactKey, Kind: CompactKind, At: now})
	} else {
		s.armCompaction(&eff, now)
	}
	eff.Sync = eff.Sync || len(eff.Records) > 0 || len(eff.Deletes) > 0
	return eff
}

// compactLane compacts l up to the newest ack whose retention ended, at
// most budget obligations; it returns how many it dropped.
func (s *State) compactLane(l *lane, now time.Time, budget int, eff *Effects) int {
	upto := l.base
	n := 0
	for n < len(l.marks) && !l.marks[n].at.Add(s.ret.Keep).After(now) {
		upto = max(upto, l.marks[n].upto)
		n++
	}
	if upto <= l.base {
		l.marks = l.marks[n:]
		return 0
	}
	if upto-l.base > uint64(budget) {
		upto = l.base + uint64(budget) // the rest next time, its mark kept
	} else {
		l.marks = slices.Clone(l.marks[n:])
	}
	dropped := int(upto - l.base)
	if s.ret.DedupHorizon > 0 {
		l.recent = make(map[string]Tombstone, dropped)
	}
	for seq := l.base + 1; seq <= upto; seq++ {
		o := l.ob(seq)
		eff.Deletes = append(eff.Deletes, obligationRecord(*o).Key())
		if s.ret.DedupHorizon > 0 {
			t := Tombstone{Lane: l.name, ID: o.ID, Seq: seq, Class: o.Class, Posted: o.Posted, Compacted: now}
			l.recent[o.ID] = t
			eff.Records = append(eff.Records, tombstoneRecord(t))
		}
	}
	l.obs = slices.Clone(l.obs[dropped:]) // let the dropped bodies go
	l.base = upto
	ids := make(map[string]uint64, len(l.obs)) // a map never shrinks: rebuild it
	for _, o := range l.obs {
		ids[o.ID] = o.Seq
	}
	l.ids = ids
	if s.ret.DedupHorizon > 0 && l.tombSince.IsZero() {
		l.tombSince = now
	}
	eff.Records = append(eff.Records, compactionRecord(l.compaction(now)))
	return dropped
}

// Swept tells the state that lane's tombstones up to a sweep are deleted;
// oldest is when the oldest one left was compacted (zero when none is
// left). Its effects persist the lane's compaction record and re-arm the
// deadline.
func (s *State) Swept(name string, oldest, now time.Time) (Effects, error) {
	l, err := s.lane(name)
	if err != nil {
		return Effects{}, err
	}
	l.tombSince = oldest
	eff := Effects{Records: []Record{compactionRecord(l.compaction(now))}, Sync: true}
	s.armCompaction(&eff, now)
	return eff, nil
}

// NeedsTombstone reports whether a post of id to lane should be checked
// against the store's tombstones: the lane compacted obligations, the id is
// not live, and tombstones are kept.
func (s *State) NeedsTombstone(name, id string) bool {
	l, ok := s.lanes[name]
	if !ok || l.base == 0 || s.ret.DedupHorizon <= 0 {
		return false
	}
	_, live := l.ids[id]
	return !live
}

// Absorb decides a post of an id that is not live against the tombstone
// found for it (t, nil when none was found): within the dedup horizon it
// returns the compacted obligation as a duplicate (without its body, which
// is gone) and true. A tombstone of the latest compaction, not yet read
// back from the store, counts too.
func (s *State) Absorb(name, id string, t *Tombstone, now time.Time) (Obligation, bool) {
	l, ok := s.lanes[name]
	if !ok {
		return Obligation{}, false
	}
	if t == nil {
		r, ok := l.recent[id]
		if !ok {
			return Obligation{}, false
		}
		t = &r
	}
	if t.Lane != name || t.ID != id || !t.Compacted.Add(s.ret.DedupHorizon).After(now) {
		return Obligation{}, false
	}
	return Obligation{Lane: name, Seq: t.Seq, ID: id, Class: t.Class, Posted: t.Posted, Duplicate: true, Compacted: true}, true
}

func (l *lane) compaction(now time.Time) Compaction {
	return Compaction{Lane: l.name, Base: l.base, At: now, TombSince: l.tombSince}
}

// TombstoneKey is the store key of lane's tombstone for id.
func TombstoneKey(lane, id string) string { return "t/" + lane + "/" + id }
