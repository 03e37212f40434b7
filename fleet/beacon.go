package fleet

import (
	"context"
	"encoding/json"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/wakewheel/wakewheel/deadlines"
	ob "github.com/wakewheel/wakewheel/obligations"
	"github.com/wakewheel/wakewheel/scheduler"
)

// BeaconKind is the deadline kind of the fleet beacon; its key is
// fleet-beacon/<host>. Each beacon re-arms it one period on: no ticker,
// so a wedged runner stops the beacon, which is what a monitor must see.
const BeaconKind = "fleet-beacon"

// Runner is the scheduler's single entry point; *scheduler.Runner
// satisfies it.
type Runner interface {
	Do(ctx context.Context, fn func(e *scheduler.Engine, now time.Time)) error
}

// HostBeacon is what a host publishes in the beacons bucket, under its
// encoded name, with a TTL of period + grace: its liveness, and the view
// `wakewheel fleet status` shows.
type HostBeacon struct {
	Host    string    `json:"host"`
	Version string    `json:"version"`
	At      time.Time `json:"at"`
	// Boot names the daemon's run (random at its start) and Seq counts its
	// beacons: the monitor sees each beacon twice (the core subject and
	// the bucket) and counts it once.
	Boot   string  `json:"boot,omitempty"`
	Seq    uint64  `json:"seq,omitempty"`
	Period float64 `json:"period_s"`
	TTL    float64 `json:"ttl_s"`
	// Outbox is the number of posts queued here for other homes.
	Outbox    int  `json:"outbox"`
	Importing bool `json:"importing"`
	// Since the daemon started: posts forwarded, imported, terminated as
	// malformed, and imports that were redeliveries.
	Forwarded   uint64 `json:"forwarded"`
	Imported    uint64 `json:"imported"`
	Terminated  uint64 `json:"terminated"`
	Redelivered uint64 `json:"redelivered"`
	// Wakes and no-op wakes since the daemon started.
	Wakes uint64 `json:"wakes"`
	Noops uint64 `json:"noops"`
	// Safety is the host's cut-over safety vector, the report of
	// `wakewheel ledger report` over its latest ledger entries
	// (fleet.beacon.safety_entries), as of the previous beacon; nil until
	// the daemon has read its ledger once.
	Safety *ob.Report `json:"safety,omitempty"`
}

// LaneView is one lane as its home reports it.
type LaneView struct {
	Lane       string    `json:"lane"`
	Head       uint64    `json:"head"`
	Consumed   uint64    `json:"consumed"`
	Unconsumed ob.Counts `json:"unconsumed"`
}

// BeaconHandler is the handler of BeaconKind: it publishes this host's
// beacon (from its own goroutine: a slow broker never holds the worker)
// and re-arms the deadline one period on.
func (m *Member) BeaconHandler() scheduler.Handler {
	return func(ctx context.Context, f scheduler.Firing) scheduler.Outcome {
		r := m.runner.Load()
		if r == nil || f.Deadline.Key != hostKey(BeaconKind, m.opts.Host) {
			return scheduler.Succeeded() // stale: another host name, or Start arms it
		}
		select {
		case m.beacons <- struct{}{}:
		default: // one is on its way already
		}
		if err := m.armBeacon(ctx, *r, m.opts.BeaconPeriod); err != nil {
			return scheduler.RetryLater(err)
		}
		return scheduler.Succeeded()
	}
}

func (m *Member) armBeacon(ctx context.Context, r Runner, in time.Duration) error {
	return m.arm(ctx, r, deadlines.OpReset, BeaconKind, in)
}

// arm applies op to this host's deadline of kind (kind/<host>), due in
// from now, through r.
func (m *Member) arm(ctx context.Context, r Runner, op deadlines.Op, kind string, in time.Duration) error {
	var applyErr error
	err := r.Do(ctx, func(e *scheduler.Engine, now time.Time) {
		_, applyErr = e.Apply(now, deadlines.Mutation{Op: op, Key: hostKey(kind, m.opts.Host), Kind: kind, At: now.Add(in)})
	})
	if err != nil {
		return err
	}
	return applyErr
}

// hostKey is the key of host's deadline of kind: the beacon's and the
// lanes publish's.
func hostKey(kind, host string) string { return kind + "/" + host }

// sendBeacons publishes a beacon each time the handler asks, until ctx
// ends, on two paths: first on the core subject BeaconSubject (a plain
// publish: it reaches a monitor while the beacons bucket elects a new
// leader), then as a put in the bucket (with its TTL, for `fleet status`
// and for a monitor that starts later). The put runs on its own
// goroutine, one at a time: a put waiting out an election never holds the
// next core publish back.
func (m *Member) sendBeacons(ctx context.Context) {
	var putting atomic.Bool
	for {
		select {
		case <-ctx.Done():
			return
		case <-m.beacons:
		}
		if !m.conn.Up() {
			continue // the monitor notices; the next one may get through
		}
		b := m.beacon()
		b.Boot, b.Seq = m.boot, m.beaconSeq.Add(1)
		data, err := json.Marshal(b)
		if err != nil {
			continue
		}
		if err := m.conn.nc.Publish(BeaconSubject(m.opts.Host), data); err != nil {
			m.log.Debug().Err(err).Msg("fleet: beacon not published on its subject")
		}
		if !putting.CompareAndSwap(false, true) {
			continue // the last put still waits for the bucket
		}
		m.wg.Add(1)
		go func() {
			defer m.wg.Done()
			defer putting.Store(false)
			pctx, cancel := context.WithTimeout(ctx, m.conn.opts.RequestTimeout)
			defer cancel()
			_, err := m.conn.JetStream().Publish(pctx, "$KV."+BeaconsBucket+"."+Encode(m.opts.Host), data,
				jetstream.WithMsgTTL(m.opts.BeaconTTL()), jetstream.WithExpectStream("KV_"+BeaconsBucket))
			if err != nil {
				m.log.Debug().Err(err).Msg("fleet: beacon not put in the bucket")
				return
			}
			m.beaconsSent.Add(1)
		}()
		m.refreshSafety(ctx)
	}
}

// refreshSafety computes the safety vector the next beacon carries (after
// this one is on its way: reading the ledger never delays a beacon).
func (m *Member) refreshSafety(ctx context.Context) {
	if m.safety == nil {
		return
	}
	sctx, cancel := context.WithTimeout(ctx, m.conn.opts.RequestTimeout)
	defer cancel()
	r, err := m.safety.report(sctx)
	if err != nil {
		m.log.Debug().Err(err).Msg("fleet: the beacon's safety vector not computed")
		return
	}
	m.lastSafety.Store(&r)
}

// beacon is this host's beacon now.
func (m *Member) beacon() HostBeacon {
	b := HostBeacon{Host: m.opts.Host, Version: m.opts.Version, At: m.opts.Clock.Now(),
		Period: m.opts.BeaconPeriod.Seconds(), TTL: m.opts.BeaconTTL().Seconds(),
		Outbox: m.outbox.Len(), Importing: m.importing.Load(),
		Forwarded: m.forwarded.Load(), Imported: m.imported.Load(), Terminated: m.terminated.Load(),
		Redelivered: m.redelivered.Load(), Safety: m.lastSafety.Load()}
	if m.opts.Deliveries != nil {
		wakes, noops := m.opts.Deliveries()
		for _, n := range wakes {
			b.Wakes += n
		}
		for _, n := range noops {
			b.Noops += n
		}
	}
	return b
}
