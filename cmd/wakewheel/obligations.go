package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync/atomic"
	"time"

	"github.com/spf13/cobra"
	"github.com/wakewheel/wakewheel/api"
	"github.com/wakewheel/wakewheel/configs"
	"github.com/wakewheel/wakewheel/deadlines"
	"github.com/wakewheel/wakewheel/fleet"
	"github.com/wakewheel/wakewheel/internal/clock"
	"github.com/wakewheel/wakewheel/liveness"
	"github.com/wakewheel/wakewheel/metrics"
	ob "github.com/wakewheel/wakewheel/obligations"
	"github.com/wakewheel/wakewheel/scheduler"
	"github.com/wakewheel/wakewheel/wakes"
)

// The obligations settings come from the config (obligations.*, beacon.*,
// and the lanes table: lanes.<name>.wake_hook, config file only), except
// the beacon's host name, which has no key yet:
//
//	WAKEWHEEL_BEACON_HOST  this host's name in the beacon (default: the
//	                       hostname); the beacon's deadline is beacon/<host>
//
// Wake hooks come from the operator's config file only: no API request can
// set one, so no agent can make the daemon run a command. Class policies
// and wake hooks follow a live reload; the beacon's settings are read at
// start.
const envBeaconHost = "WAKEWHEEL_BEACON_HOST"

// obligationsCap is the obligations capability: the wake doctrine's
// service, its redeliver handler, its API routes, and the beacon.
type obligationsCap struct {
	d        *daemon
	svc      *wakes.Service   // set by engine
	beacon   *liveness.Beacon // set by engine when beacon.url is
	member   *fleet.Member    // nil outside a fleet
	embedded *fleet.Embedded  // the broker node of a fleet of one (fleet.embed), a child
	hooks    atomic.Pointer[map[string]configs.Lane]
	agents   *agentsPart
}

func (p *obligationsCap) capability() capability {
	return capability{name: "obligations", engine: p.engine, serve: p.serve, close: p.close,
		reload: p.reload, metrics: p.metrics, timetable: lanesTimetable, timedKinds: []string{ob.RedeliverKind},
		live: []string{"lanes", "agents.idle", "agents.timeout", "agents.prompt", "obligations.max_body", "obligations.max_lanes",
			"obligations.human.slo", "obligations.peer.slo", "obligations.digest.slo", "obligations.alert.slo",
			"obligations.human.cadence", "obligations.peer.cadence", "obligations.digest.cadence", "obligations.alert.cadence"}}
}

// postToLane posts o to a lane that exists (a reminder's alert): a lane
// that was never opened, or was closed, is an error.
func (p *obligationsCap) postToLane(ctx context.Context, o ob.Obligation) (ob.Obligation, error) {
	if p.svc == nil {
		return ob.Obligation{}, errors.New("the obligations service is not open")
	}
	return p.svc.Post(ctx, o, false)
}

// post posts a machine obligation (a detection digest), creating its lane.
func (p *obligationsCap) post(ctx context.Context, o ob.Obligation) error {
	if p.svc == nil {
		return errors.New("the obligations service is not open")
	}
	_, err := p.svc.Post(ctx, o, true)
	return err
}

func (p *obligationsCap) engine(eng *scheduler.Engine) error {
	d := p.d
	log := d.log.With().Str("component", "obligations").Logger()
	p.svc, p.beacon = nil, nil
	p.hooks.Store(&d.cfg.Lanes)
	bopts, err := beaconOptions(d.cfg.Beacon, os.LookupEnv)
	if err != nil {
		return err
	}
	if bopts.URL != "" {
		bopts.Logger = log
		if p.beacon, err = liveness.NewBeacon(bopts, d.db); err != nil {
			return err
		}
		eng.Register(liveness.BeaconKind, p.beacon.Handler())
		log.Info().Str("host", bopts.Host).Dur("period", p.beacon.Period()).Msg("beacon configured")
	} else {
		eng.Register(liveness.BeaconKind, liveness.Idle())
	}
	p.agents = newAgentsPart(d)
	opts := wakes.Options{Policies: policies(d.cfg.Obligations), Clock: d.clock, Logger: log, Hook: p.wakeHook, OnWake: p.agents.wake,
		Declared: p.declared, MaxLanes: d.cfg.Obligations.MaxLanes,
		Retention: ob.Retention{Keep: d.cfg.Obligations.Retention, DedupHorizon: d.cfg.Obligations.DedupHorizon}}
	if p.beacon != nil {
		opts.OnFailure = p.beacon.Fail
	}
	for lane, l := range d.cfg.Lanes {
		if l.WakeHook != "" {
			log.Info().Str("lane", lane).Msg("wake hook configured")
		}
	}
	svc, muts, err := wakes.Open(d.db, opts)
	if err != nil {
		return err
	}
	p.svc = svc
	if err := p.agents.open(d, svc); err != nil {
		return err
	}
	if p.member, p.embedded, err = newFleetMember(d, eng, svc); err != nil {
		return err
	}
	eng.Register(ob.RedeliverKind, svc.Handler())
	eng.Register(ob.CompactKind, svc.CompactHandler())
	if err := eng.ApplyAll(d.clock.Now(), muts...); err != nil {
		log.Warn().Err(err).Msg("re-deriving redeliver deadlines")
	}
	return nil
}

func (p *obligationsCap) serve(ctx context.Context) error {
	d := p.d
	p.svc.Attach(d.runner)
	routes, err := startFleet(ctx, d, p.member, p.svc)
	if err != nil {
		return err
	}
	api.RegisterObligations(d.srv, routes)
	p.agents.serve(d)
	if p.beacon != nil {
		if err := p.beacon.Start(ctx, d.runner); err != nil {
			return fmt.Errorf("beacon: %w", err)
		}
	}
	return nil
}

func (p *obligationsCap) close() {
	if p.member != nil {
		p.member.Close()
	}
	if p.embedded != nil {
		p.embedded.Close()
	}
	if p.beacon != nil {
		p.beacon.Stop()
	}
	p.agents.close()
	p.svc.Close()
	writeCommitStats(p.d.log, p.svc.CommitStats(), p.d.db.Stats())
}

// reload puts a valid config change in force: class policies, wake hooks
// (and so the lanes the file declares), the lane cap.
func (p *obligationsCap) reload(old, cur configs.Config) {
	p.hooks.Store(&cur.Lanes)
	if p.agents != nil {
		p.agents.reload(cur)
	}
	if p.svc != nil {
		p.svc.SetMaxLanes(cur.Obligations.MaxLanes)
	}
	if p.svc == nil || old.Obligations == cur.Obligations {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := p.svc.SetPolicies(ctx, policies(cur.Obligations)); err != nil {
		p.d.log.Error().Err(err).Msg("obligations: the new class policies are not in force")
	}
}

// declared reports whether the config file names the lane (lanes.<lane>).
func (p *obligationsCap) declared(lane string) bool {
	if m := p.hooks.Load(); m != nil {
		_, ok := (*m)[lane]
		return ok
	}
	return false
}

// wakeHook is the configured wake hook of a lane (lanes.<lane>.wake_hook).
func (p *obligationsCap) wakeHook(lane string) string {
	if m := p.hooks.Load(); m != nil {
		return (*m)[lane].WakeHook
	}
	return ""
}

// policies turns the configured class timings into the doctrine's table.
func policies(c configs.Obligations) ob.Policies {
	pol := ob.Policies{}
	for cls, t := range map[ob.Class]configs.Class{ob.ClassHuman: c.Human, ob.ClassPeer: c.Peer, ob.ClassDigest: c.Digest, ob.ClassAlert: c.Alert} {
		pol[cls] = ob.Policy{Cadence: t.Cadence, SLO: t.SLO, MaxBody: c.MaxBody}
	}
	return pol
}

// lanesTimetable is how the lanes time their deadlines under c: each
// class's cadence.
func lanesTimetable(c *configs.Config) deadlines.Timetable {
	return policies(c.Obligations).Timetable()
}

// slos are the limits a ledger report judges against: the configured SLOs.
func (a *app) slos(cmd *cobra.Command) (ob.SLOs, error) {
	cfg, _, err := a.config(cmd)
	return ob.DefaultSLOs(policies(cfg.Obligations)), err
}

// beaconOptions are the configured beacon's; no URL means no beacon.
func beaconOptions(c configs.Beacon, env func(string) (string, bool)) (liveness.BeaconOptions, error) {
	o := liveness.BeaconOptions{URL: c.URL, Period: c.Period}
	if o.URL == "" {
		return o, nil
	}
	o.Host, _ = env(envBeaconHost)
	if o.Host == "" {
		h, err := os.Hostname()
		if err != nil {
			return o, fmt.Errorf("%s is unset and the hostname is unknown: %w", envBeaconHost, err)
		}
		o.Host = h
	}
	if c.KeyFile != "" {
		key, err := readKeyFile(c.KeyFile)
		if err != nil {
			return o, fmt.Errorf("beacon.key_file: %w", err)
		}
		o.Key, o.Clock = key, clock.Real{}
	}
	return o, nil
}

// metrics adds the lanes' unconsumed obligations by class, and their wakes
// and no-op wakes, to a scrape.
func (p *obligationsCap) metrics(ctx context.Context, s *metrics.Snapshot) error {
	if p.svc == nil {
		return nil
	}
	lanes, err := p.svc.Lanes(ctx)
	if err != nil {
		return err
	}
	if s.Unconsumed == nil {
		s.Unconsumed = map[metrics.LaneClass]int{}
	}
	for _, l := range lanes {
		for class, n := range map[string]int{"human": l.Counts.Human, "peer": l.Counts.Peer, "digest": l.Counts.Digest, "alert": l.Counts.Alert} {
			s.Unconsumed[metrics.LaneClass{Lane: l.Lane, Class: class}] = n
		}
	}
	s.Wakes, s.NoopWakes = p.svc.Deliveries()
	if p.member != nil {
		s.Fleet = fleetSnapshot(p.member.Status())
	}
	return nil
}
