package main

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/rs/zerolog"
	"github.com/wakewheel/wakewheel/api"
	"github.com/wakewheel/wakewheel/configs"
	"github.com/wakewheel/wakewheel/fleet"
	"github.com/wakewheel/wakewheel/liveness"
	"github.com/wakewheel/wakewheel/metrics"
	ob "github.com/wakewheel/wakewheel/obligations"
	"github.com/wakewheel/wakewheel/scheduler"
	"github.com/wakewheel/wakewheel/wakes"
)

// fleetOptions are the configured fleet's (fleet.*); no URL means none.
func fleetOptions(c configs.Fleet) fleet.Options {
	return fleet.Options{
		URL: c.URL, Host: c.Host, Creds: c.Creds, NKeySeed: c.NKeySeed,
		TLS:      fleet.TLS{CA: c.TLS.CA, Cert: c.TLS.Cert, Key: c.TLS.Key, ServerName: c.TLS.ServerName},
		Replicas: c.Replicas, MaxAge: c.MaxAge, MaxBytes: int64(c.MaxBytes), DupWindow: c.DupWindow,
		AckWait: c.AckWait, FetchBatch: c.FetchBatch, OutboxMax: c.OutboxMax,
		BeaconPeriod: c.Beacon.Period, BeaconGrace: c.Beacon.Grace, LanesCoalesce: c.Lanes.Coalesce,
		RequestTimeout: c.Timings.RequestTimeout, PublishAckWait: c.Timings.PublishAckWait,
		FetchWait: c.Timings.FetchWait, RetryMax: c.Timings.RetryMax, PingInterval: c.Timings.PingInterval,
	}
}

// newFleetMember joins the configured fleet, if any (nil when fleet.url
// is empty), and registers its beacon's handler on eng. The member dials
// the broker in the background: a daemon starts and serves its local
// lanes while the broker is down.
func newFleetMember(d *daemon, eng *scheduler.Engine, svc *wakes.Service) (*fleet.Member, *fleet.Embedded, error) {
	if d.cfg.Fleet.URL == "" {
		eng.Register(fleet.BeaconKind, liveness.Idle()) // retire deadlines left by an earlier config
		eng.Register(fleet.LanesKind, liveness.Idle())
		return nil, nil, nil
	}
	log := d.log.With().Str("component", "fleet").Logger()
	alert := func(code, key, msg string) {
		log.Error().Str("alert", code).Str("key", key).Msg(msg)
		if d.runner == nil {
			return
		}
		actx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = d.runner.Do(actx, func(e *scheduler.Engine, now time.Time) { e.Alert(now, code, key, msg) })
	}
	var embedded *fleet.Embedded
	if d.cfg.Fleet.Embed != "" {
		var err error
		if embedded, err = embedBroker(d, log, alert); err != nil {
			return nil, nil, err
		}
	}
	m, err := fleet.NewMember(fleet.MemberOptions{
		Options: fleetOptions(d.cfg.Fleet), Version: version, Clock: d.clock, Log: log,
		Deliveries: svc.Deliveries,
		Ledger:     svc.Ledger,
		SLOs:       ob.DefaultSLOs(policies(d.cfg.Obligations)),
		// the beacon's safety vector covers the latest entries only
		SafetyEntries: d.cfg.Fleet.Beacon.SafetyEntries,
		SLO:           func(c ob.Class) time.Duration { return policies(d.cfg.Obligations)[c].SLO },
		Check:         func(o ob.Obligation) error { return o.Check(policies(d.cfg.Obligations)) },
		Alert:         alert,
	}, svc, d.db)
	if err != nil {
		if embedded != nil {
			embedded.Close()
		}
		return nil, nil, fmt.Errorf("fleet: %w", err)
	}
	m.Register(eng)
	return m, embedded, nil
}

// startFleet starts the member and returns the obligations the API
// serves: the local service, or the member's routing in front of it.
func startFleet(ctx context.Context, d *daemon, m *fleet.Member, svc *wakes.Service) (api.Obligations, error) {
	if m == nil {
		return svc, nil
	}
	if err := m.Start(ctx, d.runner); err != nil {
		return nil, fmt.Errorf("fleet: %w", err)
	}
	d.srv.Handle("GET /v1/fleet", "fleet", fleetRoute(m))
	d.log.Info().Str("component", "fleet").Str("host", m.Host()).Str("url", d.cfg.Fleet.URL).Msg("fleet member started")
	return fleetObligations{Obligations: svc, m: m}, nil
}

// fleetObligations are the local obligations with the fleet's routing in
// front: posts go to their lane's home, and opening or first waiting on a
// lane homes it here. Everything else stays local.
type fleetObligations struct {
	api.Obligations
	m *fleet.Member
}

func (f fleetObligations) Route(ctx context.Context, o ob.Obligation, create bool, wait string) (ob.Obligation, string, error) {
	return f.m.Post(ctx, o, create, wait)
}

func (f fleetObligations) Post(ctx context.Context, o ob.Obligation, create bool) (ob.Obligation, error) {
	got, _, err := f.m.Post(ctx, o, create, "")
	return got, err
}

func (f fleetObligations) OpenLane(ctx context.Context, lane string) (ob.LaneStatus, error) {
	return f.m.OpenLane(ctx, lane)
}

func (f fleetObligations) Ack(ctx context.Context, lane string, upto uint64, action string) (ob.LaneStatus, error) {
	st, err := f.Obligations.Ack(ctx, lane, upto, action)
	if err == nil {
		f.m.LaneChanged(lane)
	}
	return st, err
}

func (f fleetObligations) Wait(ctx context.Context, lane, who, after string, timeout time.Duration) (ob.Digest, bool, error) {
	if err := f.m.EnsureHome(ctx, lane); err != nil {
		return ob.Digest{}, false, err
	}
	return f.Obligations.Wait(ctx, lane, who, after, timeout)
}

// fleetSnapshot is the member's state as the metrics show it.
func fleetSnapshot(st fleet.MemberStatus) *metrics.FleetSnapshot {
	return &metrics.FleetSnapshot{BrokerUp: st.BrokerUp, Importing: st.Importing, Outbox: st.Outbox, OutboxMax: st.OutboxMax,
		Forwarded: st.Forwarded, Imported: st.Imported, Terminated: st.Terminated, Redelivered: st.Redelivered, BeaconsSent: st.BeaconsSent}
}

// embedBroker starts the one-node broker of a fleet of one (fleet.embed)
// at fleet.url's address: the broker program as a supervised child (it
// dies with the daemon, SIGKILL included); the daemon closes it after the
// member.
func embedBroker(d *daemon, log zerolog.Logger, alert func(code, key, msg string)) (*fleet.Embedded, error) {
	c := d.cfg.Fleet
	prog, err := findBroker()
	if err != nil {
		return nil, fmt.Errorf("fleet.embed: %w", err)
	}
	b, err := fleet.StartEmbedded(fleet.EmbedOptions{Program: prog,
		Name: "embedded-" + strings.ReplaceAll(fleet.Encode(c.Host), "_", "-"), URL: c.URL, StoreDir: c.Embed,
		Args:   []string{"--log-level", d.cfg.Log.Level, "--log-format", logFormat(d.cfg.Log, os.Stderr)},
		Output: os.Stderr, Alert: alert, Clock: d.clock, Log: log})
	if err != nil {
		return nil, fmt.Errorf("fleet.embed: %w", err)
	}
	return b, nil
}
