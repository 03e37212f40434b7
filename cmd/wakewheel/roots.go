package main

import (
	"context"

	"github.com/wakewheel/wakewheel/api"
	"github.com/wakewheel/wakewheel/metrics"
	"github.com/wakewheel/wakewheel/roots"
	"github.com/wakewheel/wakewheel/scheduler"
)

// The roots plugin: the Gardener behaviours. Registered roots and their
// backlogs load with the store; armed roots resume lazily (the socket
// accepts first, then each root's first detection starts its watcher and
// inventories it); every API request is traffic for polled roots.
func init() {
	p := &rootsPlugin{}
	registerPlugin(plugin{name: "roots", engine: p.engine, serve: p.serve, close: p.close})
	metricsSources = append(metricsSources, p.metrics)
}

type rootsPlugin struct {
	m *roots.Manager
}

func (p *rootsPlugin) engine(d *daemon, eng *scheduler.Engine) error {
	c := d.cfg.Detect
	m, err := roots.Open(d.db, roots.Options{
		BurstSilence:   c.BurstSilence,
		BurstCap:       c.BurstCap,
		ReconcileQuiet: c.ReconcileQuiet,
		ReconcileCap:   c.ReconcileCap,
		DrainBudget:    c.DrainBudget,
		IndexLockWait:  c.IndexLockWait,
		WatchBudget:    c.WatchBudget,
		CommandTimeout: d.cfg.Engine.ActionTimeout,
		Clock:          d.clock,
		Logger:         d.log.With().Str("component", "roots").Logger(),
	})
	if err != nil {
		return err
	}
	p.m = m
	m.Register(eng)
	return m.Resume(eng, d.clock.Now())
}

func (p *rootsPlugin) serve(_ context.Context, d *daemon) error {
	p.m.Attach(d.runner)
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

func (p *rootsPlugin) close() {
	if p.m != nil {
		p.m.Close()
	}
}

func (p *rootsPlugin) metrics(_ context.Context, _ *daemon, s *metrics.Snapshot) error {
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
