package liveness

import (
	"context"
	"errors"
	"net"
	"net/http"
	"time"

	"github.com/wakewheel/wakewheel/internal/clock"
	"github.com/wakewheel/wakewheel/scheduler"
)

// ServeMonitor runs a monitor until ctx ends: its own engine on st (a
// store of its own: in memory, or on disk so that absence windows survive
// a monitor restart), its runner on clk, and the beacon endpoints on ln.
// Hosts in expect alarm if they never beacon. On return every alarm
// already raised has been sent to its sinks.
func ServeMonitor(ctx context.Context, ln net.Listener, st scheduler.Store, clk clock.Clock, opts MonitorOptions, expect []string) error {
	m, err := NewMonitor(opts)
	if err != nil {
		return err
	}
	eng, err := scheduler.NewEngine(st, scheduler.Options{Logger: opts.Logger}, clk.Now())
	if err != nil {
		return err
	}
	m.Register(eng)
	r := scheduler.Start(eng, clk)
	defer func() {
		r.Stop()
		m.Wait()
	}()
	m.Attach(r)
	if err := m.Expect(ctx, expect); err != nil {
		return err
	}
	if opts.Feed != nil {
		fctx, stopFeed := context.WithCancel(ctx)
		fed := make(chan struct{})
		go func() { defer close(fed); opts.Feed(fctx, m) }()
		defer func() { stopFeed(); <-fed }()
	}
	srv := &http.Server{Handler: m.Handler(), ReadHeaderTimeout: 5 * time.Second, ReadTimeout: 10 * time.Second}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	opts.Logger.Info().Str("listen", ln.Addr().String()).Dur("period", opts.Period).Dur("grace", opts.Grace).
		Strs("expect", expect).Msg("monitor listening for beacons on /ping/<host>")
	select {
	case err := <-served:
		return err
	case <-ctx.Done():
	}
	shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdown); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
