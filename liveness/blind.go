package liveness

import (
	"context"
	"errors"
	"time"

	"github.com/wakewheel/wakewheel/deadlines"
	"github.com/wakewheel/wakewheel/scheduler"
)

// Where a host's last beacon came from (HostStatus.Via).
const (
	ViaHTTP = "http" // a signed ping on /ping/<host>
	ViaFeed = "feed" // the feed (the fleet's broker), through Beacon
)

// SightStatus is the feed's sight as the monitor keeps it: while the feed
// is blind (its broker unreachable, its own probe not coming back), the
// absences of the hosts it would have seen are held, not alarmed.
type SightStatus struct {
	Blind      bool      `json:"blind"`
	BlindSince time.Time `json:"blind_since,omitzero"`
	// Episodes and Total count the blind spells so far and their time:
	// the allowance added to every held host's absence window.
	Episodes int     `json:"episodes"`
	Total    float64 `json:"total_s"`
}

// Blind tells the monitor that its feed cannot see since since (its last
// confirmed sight, at most now). From then on, an absence of a host not
// last seen over HTTP is held instead of alarmed: a silence the monitor
// could not observe is not evidence. Absences due before since still
// alarm. A second call while blind changes nothing.
func (m *Monitor) Blind(ctx context.Context, since time.Time) error {
	return m.do(ctx, func(_ *scheduler.Engine, now time.Time) error {
		m.blind(now, since)
		return nil
	})
}

func (m *Monitor) blind(now, since time.Time) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.blindSince.IsZero() {
		return
	}
	if since.IsZero() || since.After(now) {
		since = now
	}
	m.blindSince = since
	m.blindEpisodes++
}

// Sighted ends a blind spell: every held absence, and every pending one
// that was due after the spell began, moves on by the spell's length, so
// a host is absent only after period + grace of silence the monitor could
// observe. A really dead host is alarmed that much later: the allowance
// is the blind time itself (SightStatus.Total), never more. It returns
// the spell's length (0 when the monitor was not blind).
func (m *Monitor) Sighted(ctx context.Context) (time.Duration, error) {
	var spell time.Duration
	err := m.do(ctx, func(e *scheduler.Engine, now time.Time) error {
		var err error
		spell, err = m.sighted(e, now)
		return err
	})
	return spell, err
}

// sighted ends the blind spell at now, on the loop (e).
func (m *Monitor) sighted(e *scheduler.Engine, now time.Time) (time.Duration, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	from := m.blindSince
	if from.IsZero() {
		return 0, nil
	}
	spell := max(now.Sub(from), 0)
	m.blindSince = time.Time{}
	m.blindTotal += spell
	var errs []error
	for _, hs := range m.hosts {
		if hs.Via == ViaHTTP || hs.Down || hs.AbsentAt.Before(from) {
			continue
		}
		at := hs.AbsentAt.Add(spell)
		if _, err := e.Apply(now, deadlines.Mutation{Op: deadlines.OpReset, Key: AbsentKey(hs.Host), Kind: AbsentKind, At: at}); err != nil {
			errs = append(errs, err)
			continue
		}
		hs.AbsentAt, hs.Held = at, false
	}
	return spell, errors.Join(errs...)
}

// Sight reports the feed's sight.
func (m *Monitor) Sight() SightStatus {
	m.mu.Lock()
	defer m.mu.Unlock()
	return SightStatus{Blind: !m.blindSince.IsZero(), BlindSince: m.blindSince, Episodes: m.blindEpisodes,
		Total: m.blindTotal.Seconds()}
}

// Seeing tells the monitor that its feed could see at at (a probe of its
// own came back through the broker): from the first call on, the absence
// of a host not last seen over HTTP alarms only once the feed's sight is
// confirmed at or after the absence's due time, so a silence is never
// taken for an absence in the moments before the feed notices that it is
// blind. Absences held for that confirmation alarm now.
func (m *Monitor) Seeing(ctx context.Context, at time.Time) error {
	var out []Alarm
	err := m.do(ctx, func(e *scheduler.Engine, now time.Time) error {
		out = m.seeing(e, now, at)
		return nil
	})
	m.raiseAll(out)
	return err
}

func (m *Monitor) seeing(e *scheduler.Engine, now, at time.Time) []Alarm {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.gated = true
	if at.After(m.lastSight) {
		m.lastSight = at
	}
	if !m.blindSince.IsZero() {
		return nil
	}
	var out []Alarm
	for _, hs := range m.sortedLocked() {
		if hs.Held && !hs.Down && !hs.AbsentAt.After(m.lastSight) {
			hs.Held = false
			out = append(out, m.absentLocked(hs, now))
		}
	}
	return m.admitLocked(e, now, out)
}

// holdLocked says whether the absence of hs due at is held, and marks the
// host held: while the feed is blind, or before its sight is confirmed at
// at (m.mu is held). A host last seen over HTTP is never held.
func (m *Monitor) holdLocked(hs *HostStatus, at time.Time) bool {
	if hs.Via == ViaHTTP {
		return false
	}
	blind := !m.blindSince.IsZero() && !at.Before(m.blindSince)
	if !blind && !(m.gated && m.lastSight.Before(at)) {
		return false
	}
	hs.Held = true
	return true
}
