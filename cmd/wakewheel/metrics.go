package main

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/wakewheel/wakewheel/metrics"
	"github.com/wakewheel/wakewheel/scheduler"
)

// The metrics listener: when metrics.listen is set, the daemon serves
// /metrics and /healthz on that address (loopback unless
// metrics.allow_remote). A listener that cannot open is an alert
// (metrics_listen_failed), not a daemon that refuses to start: the wheel
// and the wakes matter more than their graphs.
//
// Each scrape's snapshot gets what the other capabilities know (their
// metrics: the roots' backlog depths, the lanes' unconsumed obligations
// and wakes).
func metricsCapability(d *daemon, caps []capability) capability {
	var sources []func(ctx context.Context, s *metrics.Snapshot) error
	for _, c := range caps {
		if c.metrics != nil {
			sources = append(sources, c.metrics)
		}
	}
	return capability{name: "metrics", serve: func(ctx context.Context) error { return serveMetrics(ctx, d, sources) }}
}

func serveMetrics(ctx context.Context, d *daemon, sources []func(context.Context, *metrics.Snapshot) error) error {
	cfg := d.cfg.Metrics
	if cfg.Listen == "" {
		return nil
	}
	ln, err := metrics.Listen(cfg.Listen, cfg.AllowRemote)
	if err != nil {
		d.log.Error().Err(err).Msg("metrics listener not started; the daemon runs on without it")
		_ = d.runner.Do(ctx, func(e *scheduler.Engine, now time.Time) {
			e.Alert(now, "metrics_listen_failed", "", err.Error())
		})
		return nil
	}
	src := newEngineSource(d, sources)
	m := metrics.New(src.snapshot, version)
	srv := metrics.Serve(ln, m.Handler(func(ctx context.Context) error {
		if err := d.db.Health(); err != nil { // a store that cannot write (heals by itself)
			return err
		}
		return d.runner.Do(ctx, func(*scheduler.Engine, time.Time) {})
	}))
	d.log.Info().Str("addr", ln.Addr().String()).Msg("serving /metrics and /healthz")
	go func() {
		<-ctx.Done()
		shutdownCtx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		srv.Shutdown(shutdownCtx)
	}()
	return nil
}

// engineSource builds snapshots from the engine (through the runner) and
// the store's fire and alert logs, which it reads from where the previous
// scrape stopped.
type engineSource struct {
	d        *daemon
	sources  []func(context.Context, *metrics.Snapshot) error
	mu       sync.Mutex
	fireSeq  uint64            // last fire record observed
	alertSeq uint64            // last alert record counted
	alerts   map[string]uint64 // alerts by code since the daemon started
}

// maxLogRead bounds the records one scrape reads from each log; more than
// that between two scrapes are skipped (counted in no histogram bucket).
const maxLogRead = 10000

func newEngineSource(d *daemon, sources []func(context.Context, *metrics.Snapshot) error) *engineSource {
	s := &engineSource{d: d, sources: sources, alerts: map[string]uint64{}}
	// Start after the records of earlier runs: counters count this process.
	if fires, err := d.db.Fires(0, maxLogRead); err == nil && len(fires) > 0 {
		s.fireSeq = fires[len(fires)-1].Seq
	}
	if alerts, err := d.db.Alerts(1); err == nil && len(alerts) > 0 {
		s.alertSeq = alerts[len(alerts)-1].Seq
	}
	return s
}

func (s *engineSource) snapshot(ctx context.Context) (metrics.Snapshot, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var snap metrics.Snapshot
	err := s.d.runner.Do(ctx, func(e *scheduler.Engine, _ time.Time) {
		st := e.Stats()
		snap.Fired, snap.RunsByOutcome, snap.Waiting = st.Fired, st.Outcomes, e.Waiting()
		snap.PendingByKind = e.PendingByKind()
	})
	if err != nil {
		return snap, err
	}
	if fires, err := s.d.db.Fires(s.fireSeq, maxLogRead); err == nil {
		for _, f := range fires {
			snap.Lateness = append(snap.Lateness, f.Fired.Sub(f.At))
			s.fireSeq = f.Seq
		}
	}
	if alerts, err := s.d.db.Alerts(maxLogRead); err == nil {
		for _, a := range alerts {
			if a.Seq > s.alertSeq {
				s.alerts[a.Code]++
				s.alertSeq = a.Seq
			}
		}
	}
	snap.AlertsByCode = make(map[string]uint64, len(s.alerts))
	for code, n := range s.alerts {
		snap.AlertsByCode[code] = n
	}
	var errs []error
	for _, add := range s.sources {
		errs = append(errs, add(ctx, &snap))
	}
	if err := errors.Join(errs...); err != nil {
		s.d.log.Warn().Err(err).Msg("a metrics source failed; its series are missing from this scrape")
	}
	return snap, nil
}
