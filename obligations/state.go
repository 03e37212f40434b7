package obligations

import (
	"fmt"
	"slices"
	"time"
)

// State is the wake doctrine's state for every lane: obligations, cursors,
// idempotency ids. Every change goes through a method that takes now and
// returns Effects; State does no I/O and is not safe for concurrent use
// (in the daemon, wakes.Service owns it behind its mutex).
type State struct {
	pol      [numClasses]Policy
	ret      Retention
	lanes    map[string]*lane
	maxLanes int // 0: no cap (close.go)
}

// New returns an empty State after validating p.
func New(p Policies) (*State, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	return &State{pol: p.normalized(), lanes: map[string]*lane{}}, nil
}

// Policy returns the policy in force for class c.
func (s *State) Policy(c Class) (Policy, bool) {
	i := c.index()
	if i < 0 {
		return Policy{}, false
	}
	return s.pol[i], true
}

// Open creates an empty lane, so that it exists (and survives a restart)
// before anything is posted to it. Opening an existing lane does nothing.
func (s *State) Open(name string, now time.Time) (Effects, error) {
	if err := ValidateLane(name); err != nil {
		return Effects{}, err
	}
	if _, ok := s.lanes[name]; ok {
		return Effects{}, nil
	}
	if err := s.roomForLane(name); err != nil {
		return Effects{}, err
	}
	l := newLane(name)
	s.lanes[name] = l
	return Effects{Records: []Record{cursorRecord(l.cursor(now))}, Sync: true}, nil
}

// Post adds o to its lane (creating the lane on first post) and wakes the
// lane with a new wake id. Post assigns o.Seq and o.Posted.
//
// Re-posting an id already in the lane returns the original obligation
// with Duplicate set and no effects, whatever the new copy says.
//
// Errors (no effects): ErrBadLane, ErrBadID, ErrUnknownClass,
// ErrBodyTooLarge, ErrBadBody, ErrNoLocator, ErrBadField, ErrTooManyLanes.
func (s *State) Post(o Obligation, now time.Time) (Obligation, Effects, error) {
	if err := ValidateLane(o.Lane); err != nil {
		return Obligation{}, Effects{}, err
	}
	if err := validateID(o.ID); err != nil {
		return Obligation{}, Effects{}, err
	}
	l := s.lanes[o.Lane]
	if l != nil {
		if seq, ok := l.ids[o.ID]; ok {
			orig := *l.ob(seq)
			orig.Duplicate = true
			return orig, Effects{}, nil
		}
	}
	if err := o.validate(&s.pol); err != nil {
		return Obligation{}, Effects{}, err
	}
	if l == nil {
		if err := s.roomForLane(o.Lane); err != nil {
			return Obligation{}, Effects{}, err
		}
		l = newLane(o.Lane)
		s.lanes[o.Lane] = l
	}
	o.Seq = l.head() + 1
	o.Posted = now
	o.Duplicate = false
	l.obs = append(l.obs, o)
	l.ids[o.ID] = o.Seq
	l.unconsumed[o.Class.index()]++

	eff := Effects{Records: []Record{obligationRecord(o)}, Sync: true}
	eff.Ledger = append(eff.Ledger, Entry{
		Kind: EntryPost, Lane: o.Lane, Seq: o.Seq, ID: o.ID, Class: o.Class,
		Canary: o.Canary, Event: now, At: now,
	})
	s.wake(l, o.Class, WakePost, now, &eff)
	return o, eff, nil
}

// Ack moves the lane's CONSUMED cursor to upto, consuming every obligation
// up to it (a cumulative ack over a contiguous prefix). action, when not
// empty, names the consequential action taken (a qualified action in the
// ledger).
//
// Acking at or below CONSUMED is a no-op (no error, no effects): CONSUMED
// never moves backwards. Acking past RECEIVED is refused with an error
// wrapping ErrAckPastReceived: a consumer cannot consume what was never
// delivered to it. When a class has nothing left unconsumed its redeliver
// deadline is cancelled. The cursor record must be synced before the ack is
// acknowledged.
func (s *State) Ack(name string, upto uint64, action string, now time.Time) (Effects, error) {
	l, err := s.lane(name)
	if err != nil {
		return Effects{}, err
	}
	if err := checkField("action", action, MaxIDLen); err != nil {
		return Effects{}, err
	}
	if upto > l.received {
		return Effects{}, fmt.Errorf("%w: lane %s: ack upto %d but RECEIVED is %d (head %d); deliver before acking",
			ErrAckPastReceived, name, upto, l.received, l.head())
	}
	if upto <= l.consumed {
		return Effects{}, nil
	}
	var eff Effects
	var dropped [numClasses]bool
	for seq := l.consumed + 1; seq <= upto; seq++ {
		o := l.ob(seq)
		ci := o.Class.index()
		l.unconsumed[ci]--
		dropped[ci] = l.unconsumed[ci] == 0
		e := Entry{Kind: EntryConsumption, Lane: name, Seq: seq, ID: o.ID, Class: o.Class,
			Canary: o.Canary, Event: o.Posted, At: now}
		eff.Ledger = append(eff.Ledger, e)
		if action != "" {
			e.Kind, e.Action = EntryAction, action
			eff.Ledger = append(eff.Ledger, e)
		}
	}
	l.consumed = upto
	eff.Records = append(eff.Records, cursorRecord(l.cursor(now)))
	eff.Sync = true
	s.markAck(l, upto, now, &eff)
	for i, c := range Classes {
		if dropped[i] {
			eff.cancel(name, c)
		}
	}
	return eff, nil
}

// Lane returns the status of one lane.
func (s *State) Lane(name string) (LaneStatus, bool) {
	l, ok := s.lanes[name]
	if !ok {
		return LaneStatus{}, false
	}
	return l.status(), true
}

// Lanes returns the status of every lane, sorted by name.
func (s *State) Lanes() []LaneStatus {
	out := make([]LaneStatus, 0, len(s.lanes))
	for _, name := range s.laneNames() {
		out = append(out, s.lanes[name].status())
	}
	return out
}

// Get returns the obligation with sequence number seq in lane name (not
// one that was compacted).
func (s *State) Get(name string, seq uint64) (Obligation, bool) {
	l, ok := s.lanes[name]
	if !ok || seq <= l.base || seq > l.head() {
		return Obligation{}, false
	}
	return *l.ob(seq), true
}

// Records returns records that rebuild the current state with Restore: every
// obligation, and the cursor and last checkpoint of every lane. (A store
// compaction or an export uses it; the service normally persists Effects.)
func (s *State) Records(now time.Time) []Record {
	var out []Record
	for _, name := range s.laneNames() {
		l := s.lanes[name]
		for _, o := range l.obs {
			out = append(out, obligationRecord(o))
		}
		out = append(out, cursorRecord(l.cursor(now)))
		if l.base > 0 || !l.tombSince.IsZero() {
			out = append(out, compactionRecord(l.compaction(now)))
		}
		if l.parked != nil {
			out = append(out, checkpointRecord(*l.parked))
		}
	}
	return out
}

func (s *State) laneNames() []string {
	names := make([]string, 0, len(s.lanes))
	for name := range s.lanes {
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}

func (s *State) lane(name string) (*lane, error) {
	if err := ValidateLane(name); err != nil {
		return nil, err
	}
	l, ok := s.lanes[name]
	if !ok {
		return nil, fmt.Errorf("%w %q: nobody opened it, or it was closed", ErrUnknownLane, name)
	}
	return l, nil
}
