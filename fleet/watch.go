package fleet

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/rs/zerolog"
	"github.com/wakewheel/wakewheel/internal/clock"
	"github.com/wakewheel/wakewheel/liveness"
)

// BlindReason is the alarm reason of a fleet monitor that cannot see the
// beacons bucket.
const BlindReason = "monitor_blind"

// WatchOptions configure the fleet feed of `wakewheel monitor --fleet`.
type WatchOptions struct {
	// BlindAfter is how long the broker may be unreachable before the
	// monitor alarms that it is blind (period + grace of the monitor).
	BlindAfter time.Duration
	Clock      clock.Clock
	Log        zerolog.Logger
}

// WatchBeacons feeds m from the fleet's beacons bucket until ctx ends:
// every beacon a host puts extends the monitor's own absent/<host>
// deadline. The bucket's TTL markers only feed the log: a marker can come
// late or never when the bucket's leader dies, so absence is the
// monitor's deadline, not the broker's. While the broker is unreachable
// for longer than BlindAfter, the monitor raises monitor_blind once, and
// "recovered" when it sees again.
func WatchBeacons(ctx context.Context, conn *Conn, m *liveness.Monitor, o WatchOptions) {
	var downSince time.Time
	blind := false
	check := func() {
		now := o.Clock.Now()
		if conn.Up() {
			if blind {
				m.Raise(liveness.Alarm{Host: "broker", Reason: "recovered", At: now,
					Message: fmt.Sprintf("the fleet monitor sees the broker again after %s", now.Sub(downSince).Round(time.Millisecond))})
			}
			downSince, blind = time.Time{}, false
			return
		}
		if downSince.IsZero() {
			downSince = now
		}
		if !blind && now.Sub(downSince) >= o.BlindAfter {
			blind = true
			m.Raise(liveness.Alarm{Host: "broker", Reason: BlindReason, LastSeen: downSince, At: now,
				Message: fmt.Sprintf("the fleet monitor cannot reach the broker (%s) for %s: absences it reports may be its own blindness; the HTTP beacons still count",
					conn.Options().URL, now.Sub(downSince).Round(time.Millisecond))})
		}
	}
	for ctx.Err() == nil {
		check()
		if conn.Up() {
			watchOnce(ctx, conn, m, o, check)
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
func watchOnce(ctx context.Context, conn *Conn, m *liveness.Monitor, o WatchOptions, check func()) {
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
			check()
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
			seen(ctx, m, o, e, initial)
		}
	}
}

// seen hands one bucket entry to the monitor.
func seen(ctx context.Context, m *liveness.Monitor, o WatchOptions, e jetstream.KeyValueEntry, initial bool) {
	host, err := Decode(e.Key())
	if err != nil {
		o.Log.Warn().Str("key", e.Key()).Msg("fleet monitor: a beacon under a key no member wrote")
		return
	}
	if e.Operation() != jetstream.KeyValuePut {
		o.Log.Info().Str("host", host).Str("op", e.Operation().String()).Msg("fleet monitor: the broker expired a beacon (the monitor's own deadline decides absence)")
		return
	}
	var b HostBeacon
	if err := json.Unmarshal(e.Value(), &b); err != nil || b.Host != host {
		o.Log.Warn().Str("key", e.Key()).Msg("fleet monitor: a beacon that does not decode")
		return
	}
	// A value from before the watch started is a beacon only if it is
	// still within its TTL: a host dead before the monitor started must
	// not be given a fresh window by its last words.
	if initial && o.Clock.Now().Sub(e.Created()) > time.Duration(b.TTL*float64(time.Second)) {
		return
	}
	if err := m.Beacon(ctx, host, "success", ""); err != nil {
		o.Log.Warn().Err(err).Str("host", host).Msg("fleet monitor: recording a beacon")
	}
}
