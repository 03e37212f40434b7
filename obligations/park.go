package obligations

import (
	"fmt"
	"time"
)

// Checkpoint is phase one of a two-phase park: the lane's CONSUMED cursor
// and head at the moment an agent parks. Once its records are synced the
// agent may clear its context; Resume brings it back.
type Checkpoint struct {
	Lane     string    `json:"lane"`
	Consumed uint64    `json:"consumed"`
	Head     uint64    `json:"head"`
	At       time.Time `json:"at"`
}

// Park checkpoints the lane: it returns the checkpoint and effects that
// flush the lane's cursor and persist the checkpoint, both synced. The
// caller must persist them before telling the agent it may clear its
// context (phase two). Parking changes no cursor and no deadline: a parked
// lane with unconsumed work keeps being re-woken, so a parked consumer
// never loses a human or peer message.
func (s *State) Park(name string, now time.Time) (Checkpoint, Effects, error) {
	l, err := s.lane(name)
	if err != nil {
		return Checkpoint{}, Effects{}, err
	}
	cp := Checkpoint{Lane: name, Consumed: l.consumed, Head: l.head(), At: now}
	l.parked = &cp
	eff := Effects{
		Records: []Record{cursorRecord(l.cursor(now)), checkpointRecord(cp)},
		Sync:    true,
	}
	return cp, eff, nil
}

// Resume returns the digest of cp's lane since the checkpoint: the
// cumulative digest since CONSUMED (which is at or past cp.Consumed), with
// Since set to cp so the agent sees what arrived while it was parked. A
// resumed agent reads that digest, so Resume delivers it as Deliver does
// (RECEIVED rises to the head, deduplicated by wake id), except that a
// resume finding nothing unconsumed is not a no-op wake: the agent chose
// to resume, nothing woke it.
//
// A checkpoint ahead of the lane (a consumed cursor or head the lane never
// had) is refused with ErrBadCheckpoint.
func (s *State) Resume(cp Checkpoint, who string, now time.Time) (Digest, Effects, error) {
	l, err := s.lane(cp.Lane)
	if err != nil {
		return Digest{}, Effects{}, err
	}
	if cp.Consumed > l.consumed || cp.Head > l.head() || cp.Consumed > cp.Head {
		return Digest{}, Effects{}, fmt.Errorf(
			"%w: lane %s: checkpoint has consumed %d, head %d; the lane has consumed %d, head %d",
			ErrBadCheckpoint, cp.Lane, cp.Consumed, cp.Head, l.consumed, l.head())
	}
	d, eff := s.deliver(l, who, now, false)
	since := cp
	d.Since = &since
	return d, eff, nil
}
