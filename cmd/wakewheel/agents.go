package main

import (
	"context"
	"os"
	"path/filepath"
	"sync/atomic"
	"time"

	"github.com/rs/zerolog"
	"github.com/wakewheel/wakewheel/api"
	"github.com/wakewheel/wakewheel/configs"
	"github.com/wakewheel/wakewheel/lanerun"
	ob "github.com/wakewheel/wakewheel/obligations"
	"github.com/wakewheel/wakewheel/scheduler"
	"github.com/wakewheel/wakewheel/wakes"
)

// agentsPart is the daemon's last metre to agents (lanerun): the sessions
// the hooks report, the lanes' runners and panes. The obligations plugin
// owns it: its wakes feed it, and it stops before the service does.
type agentsPart struct {
	log zerolog.Logger
	cfg atomic.Pointer[configs.Config]
	mgr atomic.Pointer[lanerun.Manager]
}

func newAgentsPart(d *daemon) *agentsPart {
	a := &agentsPart{log: d.log.With().Str("component", "agents").Logger()}
	cfg := d.cfg
	a.cfg.Store(&cfg)
	return a
}

// wake is the service's OnWake.
func (a *agentsPart) wake(w ob.Wake) {
	if m := a.mgr.Load(); m != nil {
		m.Wake(w)
	}
}

// open creates the manager on the obligations service.
func (a *agentsPart) open(d *daemon, svc *wakes.Service) error {
	dir := filepath.Join(d.cfg.Engine.StoreDir, "agents")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	m, err := lanerun.New(lanerun.Options{
		Lanes: svc, Store: d.db, Clock: d.clock, Logger: a.log,
		Config:        a.laneConfig,
		Configured:    a.configured,
		Alert:         func(code, key, msg string) { alert(d, code, key, msg) },
		Dir:           dir,
		LogCap:        int64(d.cfg.Agents.LogCap),
		ActiveGrace:   d.cfg.Agents.ActiveGrace,
		RetryBase:     d.cfg.Engine.RetryBase,
		RetryCap:      d.cfg.Engine.RetryCap,
		RetryAttempts: d.cfg.Engine.RetryAttempts,
	})
	if err != nil {
		return err
	}
	a.mgr.Store(m)
	for _, lane := range a.configured() {
		lc := a.laneConfig(lane)
		a.log.Info().Str("lane", lane).Bool("runner", lc.Agent != "").Str("tmux", lc.Tmux).Msg("agent delivery configured")
	}
	return nil
}

// serve adds the agent routes and gives pending work to the lanes' runners.
func (a *agentsPart) serve(d *daemon) {
	m := a.mgr.Load()
	api.RegisterAgents(d.srv, m)
	go m.Start()
}

func (a *agentsPart) reload(cur configs.Config) { a.cfg.Store(&cur) }

func (a *agentsPart) close() {
	if m := a.mgr.Load(); m != nil {
		m.Close()
	}
}

// laneConfig is a lane's agent settings with the agents.* defaults.
func (a *agentsPart) laneConfig(lane string) lanerun.Config {
	cfg := a.cfg.Load()
	l := cfg.Lanes[lane].LaneAgent
	c := lanerun.Config{Agent: l.Agent, AgentTimeout: l.AgentTimeout, AgentInput: l.AgentInput, Tmux: l.Tmux, Prompt: l.Prompt}
	if c.AgentTimeout <= 0 {
		c.AgentTimeout = cfg.Agents.Timeout
	}
	if c.Prompt == "" {
		c.Prompt = cfg.Agents.Prompt
	}
	if c.AgentInput == "" {
		c.AgentInput = "text"
	}
	return c
}

func (a *agentsPart) configured() []string {
	var out []string
	for name, l := range a.cfg.Load().Lanes {
		if l.Agent != "" || l.Tmux != "" {
			out = append(out, name)
		}
	}
	return out
}

// alert records an alert through the runner (bounded: an alert never
// holds a caller).
func alert(d *daemon, code, key, msg string) {
	if d.runner == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = d.runner.Do(ctx, func(e *scheduler.Engine, now time.Time) { e.Alert(now, code, key, msg) })
}
