package fleet

import (
	"context"
	"encoding/json"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/rs/zerolog"
	"github.com/wakewheel/wakewheel/internal/clock"
	"github.com/wakewheel/wakewheel/liveness"
)

// BlindReason is the alarm reason of a fleet monitor that cannot see the
// beacons.
const BlindReason = "monitor_blind"

// Defaults of the monitor's sight probe (registered as monitor.probe_every
// and monitor.probe_late; configs says why).
const (
	DefaultProbeEvery = 250 * time.Millisecond
	DefaultProbeLate  = time.Second
)

// WatchOptions configure the fleet feed of `wakewheel monitor --fleet`.
type WatchOptions struct {
	// BlindAfter is how long the monitor may be blind before it alarms
	// that it is (period + grace of the monitor).
	BlindAfter time.Duration
	// ProbeEvery is the time between two probes of the monitor's own
	// sight; a probe not back within ProbeLate makes it blind.
	ProbeEvery, ProbeLate time.Duration
	Clock                 clock.Clock
	Log                   zerolog.Logger
}

// feedEvent is one thing the broker handed the feed: a beacon (from the
// core subject or the bucket) or the echo of one of its own probes.
type feedEvent struct {
	beacon  *HostBeacon
	echo    time.Time // the probe's send time
	initial bool      // a bucket value from before the watch started
	created time.Time // its time in the bucket
}

// WatchBeacons feeds m from the fleet's beacons until ctx ends. A beacon
// comes two ways: on the core subject BeaconSubject, which needs no
// stream leader and so keeps flowing while the beacons bucket elects one
// (the SIGKILL of its leader silenced every host for seconds), and as a
// bucket update, which also gives a monitor that starts the hosts' last
// beacons. Each beacon (counted once: Boot and Seq) extends the monitor's
// own absent/<host> deadline; the bucket's TTL markers only feed the log.
//
// The feed also watches its own sight (sight.go): it probes itself
// through the broker every ProbeEvery, tells the monitor each confirmed
// sight (so an absence alarms only once the monitor could have seen the
// beacon it lacks), and when a probe is not back within ProbeLate or the
// connection is down, it declares the monitor blind from its last
// confirmed sight: the absences that fall due meanwhile are held, and
// moved on by the blind spell when sight returns. A blind spell longer
// than BlindAfter raises monitor_blind once, and "recovered" after.
func WatchBeacons(ctx context.Context, conn *Conn, m *liveness.Monitor, o WatchOptions) {
	if o.ProbeEvery <= 0 {
		o.ProbeEvery = DefaultProbeEvery
	}
	if o.ProbeLate <= 0 {
		o.ProbeLate = DefaultProbeLate
	}
	events := make(chan feedEvent, 1024)
	offer := func(e feedEvent) {
		select {
		case events <- e:
		default:
			o.Log.Warn().Msg("fleet monitor: the feed is behind; a beacon or probe was dropped")
		}
	}
	id := randomID()
	bsub, err := conn.nc.Subscribe(beaconRoot+".*", func(msg *nats.Msg) {
		if b, ok := decodeBeacon(msg.Subject[len(beaconRoot)+1:], msg.Data, o.Log); ok {
			offer(feedEvent{beacon: &b})
		}
	})
	if err != nil {
		o.Log.Error().Err(err).Msg("fleet monitor: subscribing to the beacons")
	} else {
		defer func() { _ = bsub.Unsubscribe() }()
	}
	psub, err := conn.nc.Subscribe(ProbeSubject(id), func(msg *nats.Msg) {
		var sent time.Time
		if sent.UnmarshalText(msg.Data) == nil {
			offer(feedEvent{echo: sent})
		}
	})
	if err != nil {
		o.Log.Error().Err(err).Msg("fleet monitor: subscribing to its probe")
	} else {
		defer func() { _ = psub.Unsubscribe() }()
	}
	kvDone := make(chan struct{})
	go func() { defer close(kvDone); watchBucket(ctx, conn, o, offer) }()
	defer func() { <-kvDone }()

	s := newSight(m, conn, o)
	last := map[string]HostBeacon{} // host → the last beacon counted
	tick := o.Clock.NewTimer(0)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C():
			now := o.Clock.Now()
			if data, err := now.MarshalText(); err == nil {
				_ = conn.nc.Publish(ProbeSubject(id), data) // fails while disconnected: the sight check sees it
			}
			s.check(ctx, now)
			tick.Reset(o.ProbeEvery)
		case e := <-events:
			if e.beacon == nil {
				s.echo(ctx, o.Clock.Now(), e.echo)
				continue
			}
			b := *e.beacon
			if p, ok := last[b.Host]; ok && b.Boot != "" && p.Boot == b.Boot && b.Seq <= p.Seq {
				continue // seen on the other path already
			}
			// A value from before the watch started is a beacon only if
			// it is still within its TTL: a host dead before the monitor
			// started must not be given a fresh window by its last words.
			if e.initial && o.Clock.Now().Sub(e.created) > time.Duration(b.TTL*float64(time.Second)) {
				continue
			}
			last[b.Host] = b
			if err := m.Beacon(ctx, b.Host, "success", ""); err != nil {
				o.Log.Warn().Err(err).Str("host", b.Host).Msg("fleet monitor: recording a beacon")
			}
		}
	}
}

// decodeBeacon reads a beacon published under the encoded host name tok.
func decodeBeacon(tok string, data []byte, log zerolog.Logger) (HostBeacon, bool) {
	host, err := Decode(tok)
	if err != nil {
		log.Warn().Str("key", tok).Msg("fleet monitor: a beacon under a name no member wrote")
		return HostBeacon{}, false
	}
	var b HostBeacon
	if err := json.Unmarshal(data, &b); err != nil || b.Host != host {
		log.Warn().Str("key", tok).Msg("fleet monitor: a beacon that does not decode")
		return HostBeacon{}, false
	}
	return b, true
}

// watchBucket follows the beacons bucket, again after every drop, until
// ctx ends.
func watchBucket(ctx context.Context, conn *Conn, o WatchOptions, offer func(feedEvent)) {
	for ctx.Err() == nil {
		if conn.Up() {
			watchOnce(ctx, conn, o, offer)
		}
		t := o.Clock.NewTimer(250 * time.Millisecond)
		select {
		case <-ctx.Done():
		case <-t.C():
		}
		t.Stop()
	}
}

// watchOnce follows the bucket until the connection drops or ctx ends.
func watchOnce(ctx context.Context, conn *Conn, o WatchOptions, offer func(feedEvent)) {
	kv, err := conn.KV(ctx, BeaconsBucket)
	if err != nil {
		o.Log.Debug().Err(err).Msg("fleet monitor: beacons bucket")
		return
	}
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	w, err := kv.WatchAll(wctx)
	if err != nil {
		o.Log.Debug().Err(err).Msg("fleet monitor: watch")
		return
	}
	defer w.Stop()
	initial := true
	for {
		t := o.Clock.NewTimer(250 * time.Millisecond)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C():
			if !conn.Up() {
				return
			}
			continue
		case e, ok := <-w.Updates():
			t.Stop()
			if !ok {
				return
			}
			if e == nil { // the end of the values present when the watch started
				initial = false
				continue
			}
			if e.Operation() != jetstream.KeyValuePut {
				o.Log.Info().Str("key", e.Key()).Str("op", e.Operation().String()).
					Msg("fleet monitor: the broker expired a beacon (the monitor's own deadline decides absence)")
				continue
			}
			if b, ok := decodeBeacon(e.Key(), e.Value(), o.Log); ok {
				offer(feedEvent{beacon: &b, initial: initial, created: e.Created()})
			}
		}
	}
}
