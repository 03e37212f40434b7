package obligations

import (
	"fmt"
	"strconv"
	"time"
)

// MaxLaneLen bounds a lane name: it becomes part of store keys and of the
// deadline key redeliver/<lane>/<class>.
const MaxLaneLen = 128

// ValidateLane checks a lane name: 1 to MaxLaneLen bytes of [A-Za-z0-9._-].
// ('/' is excluded because lane names are path segments of deadline and
// store keys.) Errors wrap ErrBadLane.
func ValidateLane(name string) error {
	if name == "" {
		return fmt.Errorf("%w: lane name is empty", ErrBadLane)
	}
	if len(name) > MaxLaneLen {
		return fmt.Errorf("%w: lane name is %d bytes, at most %d allowed", ErrBadLane, len(name), MaxLaneLen)
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' ||
			c == '.' || c == '_' || c == '-'
		if !ok {
			return fmt.Errorf("%w: lane %q: character %q is not allowed (use A-Z a-z 0-9 . _ -)", ErrBadLane, name, c)
		}
	}
	return nil
}

// WakeID names the wake that announces a lane up to head. A new wake id is
// minted exactly when a post raises the head, so the id of a redelivered
// wake is the id of the wake it repeats, and it survives a restart (it is
// derived from durable facts, not stored).
func WakeID(lane string, head uint64) string {
	if head == 0 {
		return ""
	}
	return lane + "@" + strconv.FormatUint(head, 10)
}

// lane is the state of one lane. Invariants:
//
//	obs[i].Seq == base+i+1, head == base+len(obs)
//	base <= consumed <= received <= head; consumed never decreases
//	(1..base are compacted: gone but for their tombstones, retention.go)
//	unconsumed[c] == number of obligations of class c with seq > consumed
type lane struct {
	name       string
	obs        []Obligation
	ids        map[string]uint64 // idempotency id -> seq, kept as long as obs
	received   uint64
	consumed   uint64
	unconsumed [numClasses]int
	lastWake   time.Time            // zero after Restore
	parked     *Checkpoint          // last checkpoint, if any
	base       uint64               // obligations 1..base are compacted
	marks      []ackMark            // acks whose retention has not ended, oldest first
	tombSince  time.Time            // when the oldest kept tombstone was made
	recent     map[string]Tombstone // the latest compaction's tombstones
}

func newLane(name string) *lane {
	return &lane{name: name, ids: map[string]uint64{}}
}

func (l *lane) head() uint64 { return l.base + uint64(len(l.obs)) }

func (l *lane) wakeID() string { return WakeID(l.name, l.head()) }

func (l *lane) pending() int {
	n := 0
	for _, c := range l.unconsumed {
		n += c
	}
	return n
}

// ob returns the obligation with sequence number seq (base < seq <= head).
func (l *lane) ob(seq uint64) *Obligation { return &l.obs[seq-l.base-1] }

func (l *lane) cursor(at time.Time) Cursor {
	return Cursor{Lane: l.name, Received: l.received, Consumed: l.consumed, At: at}
}

// LaneStatus is a read-only summary of a lane, for status pages.
type LaneStatus struct {
	Lane     string      `json:"lane"`
	Head     uint64      `json:"head"`
	Received uint64      `json:"received"`
	Consumed uint64      `json:"consumed"`
	WakeID   string      `json:"wake_id,omitempty"`
	Counts   Counts      `json:"unconsumed"`
	LastWake time.Time   `json:"last_wake,omitzero"`
	Parked   *Checkpoint `json:"parked,omitempty"`
}

func (l *lane) status() LaneStatus {
	st := LaneStatus{
		Lane: l.name, Head: l.head(), Received: l.received, Consumed: l.consumed,
		WakeID: l.wakeID(), Counts: countsOf(l.unconsumed), LastWake: l.lastWake,
	}
	if l.parked != nil {
		cp := *l.parked
		st.Parked = &cp
	}
	return st
}

// Counts is a number of obligations per class.
type Counts struct {
	Human  int `json:"human"`
	Peer   int `json:"peer"`
	Digest int `json:"digest"`
	Alert  int `json:"alert"`
}

// Total is the sum over classes.
func (c Counts) Total() int { return c.Human + c.Peer + c.Digest + c.Alert }

// Of returns the count of class k.
func (c Counts) Of(k Class) int {
	switch k {
	case ClassHuman:
		return c.Human
	case ClassPeer:
		return c.Peer
	case ClassDigest:
		return c.Digest
	case ClassAlert:
		return c.Alert
	}
	return 0
}

func countsOf(a [numClasses]int) Counts {
	return Counts{Human: a[0], Peer: a[1], Digest: a[2], Alert: a[3]}
}
