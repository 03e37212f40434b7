package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"
	"time"

	"github.com/rs/zerolog"
	"github.com/spf13/cobra"
	"github.com/wakewheel/wakewheel/api"
	"github.com/wakewheel/wakewheel/configs"
	"github.com/wakewheel/wakewheel/internal/clock"
	"github.com/wakewheel/wakewheel/scheduler"
	"github.com/wakewheel/wakewheel/store"
)

func (a *app) daemonCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "daemon",
		Short: "Run the engine: the store, the timing wheel, the worker and the socket API",
		Long: `Run the engine in the foreground until SIGTERM or SIGINT.

With no configuration it keeps its store under $XDG_STATE_HOME/wakewheel
(~/.local/state/wakewheel) and listens on a unix socket (mode 0600) that the
other verbs use. On SIGTERM or SIGINT it stops accepting requests, lets the
running action finish or cancels it, flushes the store and exits 0.

Every setting is a flag below, an environment variable (WAKEWHEEL_KEY) or a
key of the config file: 'wakewheel help settings' says what each means.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			opts := a.loadOptions(cmd)
			cfg, _, err := configs.Load(opts)
			if err != nil {
				return err
			}
			log := newLogger(cfg.Log, os.Stderr)
			ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
			defer stop()
			return corruptExit(cfg.Engine.StoreDir, runDaemon(ctx, cfg, opts, log))
		},
	}
	// The settings are shown here (every other verb has them as hidden
	// flags; `wakewheel help settings` explains each).
	configs.AddFlags(cmd.Flags())
	return cmd
}

// runDaemon serves until ctx ends, then shuts down in order: API,
// capabilities, runner, store (which flushes its write-behind). The socket
// answers before the deadlines are loaded (status says "loading N%", every
// other request is answered "loading": retry); every request is served
// once the load is done and every capability serves.
func runDaemon(ctx context.Context, cfg configs.Config, opts configs.LoadOptions, log zerolog.Logger) error {
	d := &daemon{cfg: cfg, loadOpts: opts, log: log, clock: clock.Real{}}
	started := d.clock.Now()
	if err := refuseSecondDaemon(ctx, cfg.Engine.SocketPath); err != nil {
		return err
	}
	db, err := openStore(ctx, cfg, log)
	if err != nil {
		if errors.Is(err, store.ErrCorrupt) {
			return exitError{code: 3, err: err}
		}
		return err
	}
	d.db = db
	reportOpenNotes(db, log, started)
	defer func() {
		if err := db.Close(); err != nil {
			log.Error().Err(err).Msg("closing the store")
		}
	}()

	// The socket answers from here on: status says how far the load has
	// come, every other request is told to retry (api.Front).
	info := api.Info{Version: version, StoreDir: cfg.Engine.StoreDir, Socket: cfg.Engine.SocketPath, Started: started}
	progress := &store.LoadProgress{}
	front, err := api.ListenFront(cfg.Engine.SocketPath, info, loadState(progress), log)
	if err != nil {
		return err
	}
	defer os.Remove(cfg.Engine.SocketPath)
	shutdown := func() {
		log.Info().Msg("shutting down")
		shutdownCtx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := front.Shutdown(shutdownCtx); err != nil {
			log.Warn().Err(err).Msg("requests still in flight at shutdown")
		}
	}
	log.Info().Str("socket", cfg.Engine.SocketPath).Int("pid", os.Getpid()).Str("version", version).
		Msg("listening; loading the deadlines")

	eng, settleGC, err := loadEngine(watchedStore{db, progress, ctx}, scheduler.Options{
		Tick:          cfg.Engine.Tick,
		Slack:         cfg.Engine.TimerSlack,
		RetryBase:     cfg.Engine.RetryBase,
		RetryCap:      cfg.Engine.RetryCap,
		RetryAttempts: cfg.Engine.RetryAttempts,
		ActionTimeout: cfg.Engine.ActionTimeout,
		Indexed:       indexedKinds(),
		Logger:        log,
		Shrunk:        giveBackMemory,
	}, started)
	if ctx.Err() != nil { // SIGTERM while loading: nothing was served, the load only read
		shutdown()
		return nil
	}
	if err != nil {
		shutdown()
		return err
	}
	caps := capabilities(d)
	for _, c := range caps {
		if c.engine == nil {
			continue
		}
		if err := c.engine(eng); err != nil {
			shutdown()
			return fmt.Errorf("%s: %w", c.name, err)
		}
	}
	overdue := eng.Overdue()
	log.Info().Str("store", cfg.Engine.StoreDir).Int("reloaded", eng.Len()).Int("overdue", overdue).
		Str("tick", cfg.Engine.Tick.String()).Str("timer_slack", cfg.Engine.TimerSlack.String()).Dur("load", d.clock.Now().Sub(started)).Msg("store opened")

	loopClock := loopClock(log)
	defer loopClock.Close() // after the runner has stopped
	d.runner = scheduler.Start(eng, loopClock)
	defer d.runner.Stop()

	d.srv = api.NewServer(d.runner, db, info, log)
	addSyncProcessor(db.RawJournalSync())
	for _, c := range caps {
		if c.serve != nil {
			if err := c.serve(ctx); err != nil {
				shutdown()
				return fmt.Errorf("%s: %w", c.name, err)
			}
		}
		if c.close != nil {
			defer c.close()
		}
	}
	front.Ready(d.srv)
	go func() {
		// the load read with LevelDB's block buffer pool, whose timer would
		// wake an idle daemon every 2 s: reopened without it, beside serving
		if err := db.EndLoad(); err != nil {
			log.Warn().Err(err).Msg("ending the store's load")
		}
	}()
	settleGC()
	log.Info().Str("socket", cfg.Engine.SocketPath).Msg("ready")
	defer startDebugTrace(log)()

	select {
	case err := <-front.Served():
		if err != nil {
			return fmt.Errorf("serve: %w", err)
		}
		return nil
	case <-ctx.Done():
	}
	shutdown()
	return nil
}

// loadEngine is scheduler.NewEngine with the garbage collector relaxed for
// the reload: while the heap grows from nothing to the whole wheel the
// collector would otherwise run again and again and take the second core
// from the read-and-build pipeline. It stays relaxed until settle, which
// the caller runs once the daemon is ready: settle returns the reload's
// garbage to the system, so the resident memory follows the wheel, not the
// reload's peak, and then paces the collector by steadyGCPercent of the
// scannable heap, its collections kept at least heapFloor of garbage apart
// (gcfloor.go), unless GOGC is set. Both happen beside the serving
// daemon, not on its way to ready: one whole collection of a heap that is
// mostly the wheel (tens of milliseconds at a million deadlines).
// Lowering the percent first would start a collection at once, its
// assists charged to the start-up, and FreeOSMemory would then run a
// second one.
func loadEngine(db scheduler.Store, opts scheduler.Options, now time.Time) (eng *scheduler.Engine, settle func(), err error) {
	steady := debug.SetGCPercent(reloadGCPercent)
	_, set := os.LookupEnv("GOGC")
	if !set {
		steady = steadyGCPercent
	}
	if eng, err = scheduler.NewEngine(db, opts, now); err != nil {
		debug.SetGCPercent(steady)
		return nil, nil, err
	}
	return eng, func() {
		go func() {
			debug.FreeOSMemory()
			if set {
				debug.SetGCPercent(steady) // the operator's GOGC, as it is
				return
			}
			keepHeapFloor(steady)
		}()
	}, nil
}

const (
	// reloadGCPercent is GOGC during a reload (see loadEngine).
	reloadGCPercent = 400
	// steadyGCPercent is the garbage let grow between two collections
	// afterwards, as a percent of the scannable heap (gcfloor.go), not of
	// the whole one: the wheel's pages, most of a large heap, are never
	// scanned. Before, as GOGC over the whole heap, Go's default of 100
	// let the heap, and the resident memory, grow to twice the wheel
	// (186 MB at a million reminders after a few hundred listing pages),
	// and 50 still let half the wheel's size in garbage.
	steadyGCPercent = 50
)

// refuseSecondDaemon fails, before anything is opened, when a daemon
// already answers on the socket: it says which one, and touches nothing.
func refuseSecondDaemon(ctx context.Context, socket string) error {
	ctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	st, err := api.NewClient(socket).Status(ctx)
	if err != nil {
		return nil // no daemon answers (or one that cannot): the store's lock decides
	}
	return fmt.Errorf("a daemon is already running on %s (pid %d, store %s): stop it first, or use it (`wakewheel status`)",
		socket, st.PID, st.StoreDir)
}

// lockWait bounds how long a starting daemon waits for its store's LOCK.
const lockWait = 5 * time.Second

// openStore opens the store, waiting up to lockWait while its LOCK is
// held: a daemon restarted right after a crash can find it still held for
// a moment by a child the dead daemon was starting. A daemon that really
// runs on the store keeps it, and the error then says so.
func openStore(ctx context.Context, cfg configs.Config, log zerolog.Logger) (*store.DB, error) {
	deadline := time.Now().Add(lockWait)
	raw := rawJournalSync()
	for logged := false; ; logged = true {
		// The engine's load reads every deadline right after: it checks
		// theirs, Open the rest (one read of a million records, not two).
		db, err := store.Open(cfg.Engine.StoreDir, store.Options{FlushInterval: cfg.Engine.FlushInterval,
			HealInterval: cfg.Engine.HealInterval, LoadChecksDeadlines: true, RawJournalSync: raw})
		if !errors.Is(err, store.ErrLocked) || time.Now().After(deadline) {
			return db, err
		}
		if !logged {
			log.Warn().Str("store", cfg.Engine.StoreDir).Msg("the store is locked by another process; waiting for it")
		}
		select {
		case <-ctx.Done():
			return nil, err
		case <-time.After(50 * time.Millisecond):
		}
	}
}
