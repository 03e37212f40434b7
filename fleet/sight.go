package fleet

import (
	"context"
	"fmt"
	"time"

	"github.com/wakewheel/wakewheel/liveness"
)

// sight is the fleet monitor's knowledge of its own view: when one of its
// probes last came back through the broker, and whether it is blind.
// It runs on the feed's goroutine only.
type sight struct {
	m    *liveness.Monitor
	conn *Conn
	o    WatchOptions

	start    time.Time
	lastSent time.Time // the send time of the latest probe that came back
	lastBack time.Time // when it came back
	blind    bool
	since    time.Time // the blind spell's start: the last confirmed sight
	raised   bool      // monitor_blind was raised for this spell
}

func newSight(m *liveness.Monitor, conn *Conn, o WatchOptions) *sight {
	return &sight{m: m, conn: conn, o: o, start: o.Clock.Now()}
}

// echo: a probe sent at sent came back at now. The monitor's sight is
// confirmed up to sent; a blind spell ends.
func (s *sight) echo(ctx context.Context, now, sent time.Time) {
	if sent.After(s.lastSent) {
		s.lastSent, s.lastBack = sent, now
	}
	if s.blind && s.conn.Up() {
		spell, err := s.m.Sighted(ctx)
		if err != nil {
			s.o.Log.Warn().Err(err).Msg("fleet monitor: moving the held absences on")
		}
		s.o.Log.Warn().Dur("blind", spell).Msg("fleet monitor: sees again; absences held while blind are moved on by the blind time")
		if s.raised {
			s.m.Raise(liveness.Alarm{Host: "broker", Reason: "recovered", At: now,
				Message: fmt.Sprintf("the fleet monitor sees the beacons again after %s blind", spell.Round(time.Millisecond))})
		}
		s.blind, s.raised = false, false
	}
	if err := s.m.Seeing(ctx, s.lastSent); err != nil {
		s.o.Log.Debug().Err(err).Msg("fleet monitor: confirming its sight")
	}
}

// check declares the monitor blind when its connection is down or its
// last probe back is older than ProbeLate, and raises monitor_blind once
// a spell lasts BlindAfter.
func (s *sight) check(ctx context.Context, now time.Time) {
	seen := s.lastBack
	if seen.IsZero() {
		seen = s.start
	}
	if !s.blind && (!s.conn.Up() || now.Sub(seen) > s.o.ProbeLate) {
		s.blind = true
		s.since = s.lastSent
		if s.since.IsZero() {
			s.since = s.start
		}
		if err := s.m.Blind(ctx, s.since); err != nil {
			s.o.Log.Warn().Err(err).Msg("fleet monitor: holding absences while blind")
		}
		s.o.Log.Warn().Bool("connected", s.conn.Up()).Time("since", s.since).
			Msg("fleet monitor: blind (its own probe does not come back): absences are held until it sees again")
	}
	if s.blind && !s.raised && now.Sub(s.since) >= s.o.BlindAfter {
		s.raised = true
		s.m.Raise(liveness.Alarm{Host: "broker", Reason: BlindReason, LastSeen: s.since, At: now,
			Message: fmt.Sprintf("the fleet monitor cannot see the beacons through the broker (%s) for %s: absences of fleet hosts are held until it sees again; the HTTP beacons still count",
				s.conn.Options().URL, now.Sub(s.since).Round(time.Millisecond))})
	}
}
