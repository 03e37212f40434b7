package main

import (
	"context"
	"time"

	"github.com/wakewheel/wakewheel/api"
	"github.com/wakewheel/wakewheel/configs"
	"github.com/wakewheel/wakewheel/deadlines"
	"github.com/wakewheel/wakewheel/metrics"
	"github.com/wakewheel/wakewheel/roots"
	"github.com/wakewheel/wakewheel/scheduler"
)

// rootsCap is the roots capability: the Gardener behaviours. Registered
// roots and their backlogs load with the store; armed roots resume lazily
// (the socket accepts first, then each root's first detection starts its
// watcher and inventories it); every API request is traffic for polled
// roots; each detection goes to onDetected.
type rootsCap struct {
	d          *daemon
	onDetected func(roots.Detection)
	m          *roots.Manager // set by engine
}

func (p *rootsCap) capability() capability {
	return capability{name: "roots", engine: p.engine, serve: p.serve, close: p.close,
		reload: p.reload, metrics: p.metrics, timetable: rootsTimetable,
		timedKinds: []string{roots.KindBurst, roots.KindReconcile},
		live:       []string{"detect.burst_silence", "detect.burst_cap", "detect.reconcile_quiet", "detect.reconcile_cap"}}
}

func (p *rootsCap) engine(eng *scheduler.Engine) error {
	d := p.d
	opts := rootOptions(d.cfg.Detect)
	opts.CommandTimeout = d.cfg.Engine.ActionTimeout
	opts.Clock = d.clock
	opts.Logger = d.log.With().Str("component", "roots").Logger()
	opts.OnDetected = p.onDetected
	opts.OwnFiles = ownFiles(d.cfg)
	m, err := roots.Open(d.db, opts)
	if err != nil {
		return err
	}
	p.m = m
	m.Register(eng)
	return m.Resume(eng, d.clock.Now())
}

func (p *rootsCap) serve(ctx context.Context) error {
	d := p.d
	p.m.Attach(d.runner)
	p.declare(ctx, d.cfg.Roots)
	api.RegisterRoots(d.srv, p.m)
	prev := d.srv.OnRequest
	d.srv.OnRequest = func(verb string) {
		if prev != nil {
			prev(verb)
		}
		p.m.Traffic(verb)
	}
	return nil
}

func (p *rootsCap) close() {
	if p.m != nil {
		p.m.Close()
	}
}

// reload declares the roots of the new config, and drains again the
// backlogs whose retries were spent.
func (p *rootsCap) reload(_, cur configs.Config) {
	p.declare(context.Background(), cur.Roots)
	p.m.RetryStranded(context.Background()) // a fixed configuration resumes stranded backlogs
}

func (p *rootsCap) metrics(_ context.Context, s *metrics.Snapshot) error {
	if p.m == nil {
		return nil
	}
	if s.Backlog == nil {
		s.Backlog = map[string]int{}
	}
	for root, n := range p.m.Backlogs() {
		s.Backlog[root] = n
	}
	return nil
}

// declare registers the roots of the config file, at start and at every
// reload. A root that cannot be registered (its directory is gone, say) is
// an alert, not a failed start. The file arms a root but never disarms one
// armed from the CLI; its commands replace the root's when given; its
// windows apply from the root's next event.
func (p *rootsCap) declare(ctx context.Context, declared []configs.Root) {
	d := p.d
	for _, r := range declared {
		w := rootWindows(r)
		spec := roots.Spec{Path: r.Path, Skip: r.Skip, Arm: r.Armed, Windows: &w}
		if r.Ingest != "" {
			spec.Ingest = &r.Ingest
		}
		if r.Reconcile != "" {
			spec.Reconcile = &r.Reconcile
		}
		if _, err := p.m.Watch(ctx, spec); err != nil {
			d.log.Error().Err(err).Str("root", r.Path).Msg("a root of the config file cannot be watched")
			_ = d.runner.Do(ctx, func(e *scheduler.Engine, now time.Time) {
				e.Alert(now, "config_root_failed", "root/"+r.Path, err.Error())
			})
		}
	}
}

// rootOptions are the manager's numbers from the detect.* keys.
func rootOptions(c configs.Detect) roots.Options {
	return roots.Options{
		BurstSilence:   c.BurstSilence,
		BurstCap:       c.BurstCap,
		ReconcileQuiet: c.ReconcileQuiet,
		ReconcileCap:   c.ReconcileCap,
		DrainBudget:    c.DrainBudget,
		DrainTarget:    c.DrainTarget,
		DrainMaxBatch:  c.DrainMaxBatch,
		IndexLockWait:  c.IndexLockWait,
		IndexLockMax:   c.IndexLockMax,
		WatchBudget:    c.WatchBudget,
	}
}

// rootWindows are a config file root's own windows.
func rootWindows(r configs.Root) roots.Windows {
	return roots.Windows{BurstSilence: r.BurstSilence, BurstCap: r.BurstCap, ReconcileQuiet: r.ReconcileQuiet,
		ReconcileCap: r.ReconcileCap, DrainBudget: r.DrainBudget}
}

// rootsTimetable is how the roots time their deadlines under c: the
// detect.* windows, and each root's own over them.
func rootsTimetable(c *configs.Config) deadlines.Timetable {
	own := make(map[string]roots.Windows, len(c.Roots))
	for _, r := range c.Roots {
		path := r.Path
		if clean, err := roots.CleanPath(path); err == nil {
			path = clean // the path the root's keys are made of
		}
		own[path] = rootWindows(r)
	}
	return roots.Timetable(rootOptions(c.Detect), own)
}
