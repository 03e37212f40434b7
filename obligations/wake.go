package obligations

import (
	"fmt"
	"time"
)

// wake emits a wake of lane l caused by class c, and restarts the fallback
// cadence of every class that still has unconsumed obligations: after any
// wake, the next re-wake of class k comes no later than now+Cadence(k).
// The caller has checked that l holds unconsumed obligations.
func (s *State) wake(l *lane, c Class, why WakeReason, now time.Time, eff *Effects) {
	l.lastWake = now
	eff.Wakes = append(eff.Wakes, Wake{
		Lane: l.name, WakeID: l.wakeID(), Reason: why, Class: c, Head: l.head(), At: now,
	})
	for i, k := range Classes {
		if l.unconsumed[i] > 0 {
			eff.reset(l.name, k, now.Add(s.pol[i].Cadence))
		}
	}
}

// Fire handles a redeliver deadline that fell due at now. If the lane still
// holds unconsumed obligations of the deadline's class, the lane is woken
// again with its current wake id (a consumer that holds it can ignore the
// repeat) and the cadence restarts. Otherwise the firing is dropped: no
// effects, no wake, no error.
//
// Errors: ErrUnknownKey for a key that is not redeliver/<lane>/<class>,
// ErrUnknownLane for a lane this state does not hold.
func (s *State) Fire(key string, now time.Time) (Effects, error) {
	name, c, ok := ParseRedeliverKey(key)
	if !ok {
		return Effects{}, fmt.Errorf("%w %q (want %s/<lane>/<class>)", ErrUnknownKey, key, RedeliverKind)
	}
	l, err := s.lane(name)
	if err != nil {
		return Effects{}, err
	}
	if l.unconsumed[c.index()] == 0 {
		return Effects{}, nil
	}
	var eff Effects
	s.wake(l, c, WakeRedeliver, now, &eff)
	return eff, nil
}

// Deliver hands the lane's digest to its consumer (who names it; empty
// means the lane): what `wait` returns when a wake arrives. It raises
// RECEIVED to the head, which is what later allows an ack up to it.
//
// Delivery is deduplicated by wake id: delivering a wake whose id was
// already delivered returns the digest with Redelivery set and no effects.
// Delivering a lane with nothing unconsumed returns a Noop digest and
// records a no-op wake in the ledger (the cost the doctrine exists to cut).
//
// The cursor record of a delivery need not be synced: losing it only makes
// the same wake be presented again.
func (s *State) Deliver(name, who string, now time.Time) (Digest, Effects, error) {
	l, err := s.lane(name)
	if err != nil {
		return Digest{}, Effects{}, err
	}
	d, eff := s.deliver(l, who, now, true)
	return d, eff, nil
}

// deliver raises RECEIVED and builds the digest; noopIsWake says whether
// finding nothing unconsumed counts as a no-op wake in the ledger.
func (s *State) deliver(l *lane, who string, now time.Time, noopIsWake bool) (Digest, Effects) {
	fresh := l.received < l.head()
	var eff Effects
	switch {
	case l.pending() == 0 && !noopIsWake:
	case l.pending() == 0:
		eff.Ledger = append(eff.Ledger, Entry{Kind: EntryNoop, Lane: l.name, Seq: l.head(),
			WakeID: l.wakeID(), At: now})
	case l.received < l.head():
		l.received = l.head()
		eff.Records = append(eff.Records, cursorRecord(l.cursor(now)))
		eff.Ledger = append(eff.Ledger, Entry{Kind: EntryDelivery, Lane: l.name, Seq: l.head(),
			WakeID: l.wakeID(), At: now})
	}
	d := s.digest(l, who, now)
	d.Redelivery = !d.Noop && !fresh
	return d, eff
}
