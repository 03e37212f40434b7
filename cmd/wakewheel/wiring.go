package main

import (
	"context"

	"github.com/rs/zerolog"
	"github.com/wakewheel/wakewheel/api"
	"github.com/wakewheel/wakewheel/configs"
	"github.com/wakewheel/wakewheel/deadlines"
	"github.com/wakewheel/wakewheel/internal/clock"
	"github.com/wakewheel/wakewheel/metrics"
	"github.com/wakewheel/wakewheel/scheduler"
	"github.com/wakewheel/wakewheel/store"
)

// daemon is what a running daemon's capabilities share.
type daemon struct {
	cfg      configs.Config
	loadOpts configs.LoadOptions // the layers cfg came from: live reload keeps flags above the file
	log      zerolog.Logger
	clock    clock.Clock
	db       *store.DB
	runner   *scheduler.Runner // set before serve
	srv      *api.Server       // set before serve
}

// capability is one part of the daemon (reminders, obligations, roots,
// ...) as plain values: what it does in each phase of the daemon's life.
// Every field but name may be nil.
type capability struct {
	name string
	// engine registers deadline handlers; it runs before the runner starts,
	// on the engine that already holds every reloaded deadline.
	engine func(eng *scheduler.Engine) error
	// serve adds API routes and starts background work; it runs once the
	// runner is running and before the socket accepts requests.
	serve func(ctx context.Context) error
	// close stops background work at shutdown, before the runner stops;
	// capabilities close in the reverse order of serve.
	close func()
	// reload puts a valid config change in force (see reload.go). It runs
	// once the deadlines of shortened windows are re-timed.
	reload func(old, cur configs.Config)
	// live names the config keys (or the sections "roots", "lanes") that
	// reload reads while the daemon runs; a change to any other key is
	// logged as applying at the next start.
	live []string
	// timetable declares how the deadlines the capability owns are timed
	// under a config (deadlines.Timetable); reload re-times the pending
	// ones whose window or cap a change shortened. The keys a timetable
	// times are live.
	timetable func(c *configs.Config) deadlines.Timetable
	// timedKinds are the kinds of the deadlines the timetable claims:
	// re-timing visits only those (Engine.OfKind), each of them one of
	// indexedKinds, so a reload never visits every pending deadline.
	timedKinds []string
	// metrics adds what the capability knows to a scrape's snapshot. It
	// runs on the scrape goroutine, one scrape at a time, must not block,
	// and may find the maps of the snapshot nil.
	metrics func(ctx context.Context, s *metrics.Snapshot) error
}

// capabilities assembles the daemon d runs: every capability, in the order
// their phases run (engine and serve in this order, close in reverse, reload
// hooks in this order), and the values they share. This is the daemon's
// whole wiring: nothing registers itself elsewhere.
func capabilities(d *daemon) []capability {
	obl := &obligationsCap{d: d}
	// Detections become digests: the roots report them to the feed, which
	// posts to the obligations service of this same daemon.
	feed := newDetectionFeed(d.cfg.Lanes, d.log, obl.post)
	rts := &rootsCap{d: d, onDetected: feed.detected}
	caps := []capability{
		obl.capability(),
		remindersCapability(d, obl.postToLane),
		feed.capability(),
		rts.capability(),
		backupCapability(d),
	}
	// Reload and metrics read the others: they come last.
	caps = append(caps, reloadCapability(d, caps))
	return append(caps, metricsCapability(d, caps))
}

// loopClock is the engine loop's clock: the loop sleeps on its sleeper, a
// timerfd the loop reads itself in the network poller, so a reminder that
// comes due while the collector marks is not kept waiting by a mark worker
// (internal/clock doc.go). Where no timerfd can be made the loop sleeps on
// the runtime's timer, and says so once. A
// timerfd also has no millisecond rounding: the runtime's timers wait in the
// poller with a timeout of whole milliseconds, up to a millisecond late.
func loopClock(log zerolog.Logger) *clock.Polled {
	return &clock.Polled{Made: func(kind string, err error) {
		if err != nil {
			log.Warn().Err(err).Str("timer", kind).Msg("loop timer: falling back to the runtime timer")
			return
		}
		log.Info().Str("timer", kind).Msg("loop timer")
	}}
}
