package fleet

import (
	"context"
	"encoding/json"
	"time"

	"github.com/wakewheel/wakewheel/deadlines"
	ob "github.com/wakewheel/wakewheel/obligations"
	"github.com/wakewheel/wakewheel/scheduler"
)

// LanesKind is the deadline kind that publishes the state of the lanes
// that changed here; its key is fleet-lanes/<host>. A change pushes it to
// fire within Options.LanesCoalesce, so a burst of posts and acks is one
// publish per lane, and nothing is published while nothing changes.
const LanesKind = "fleet-lanes"

// LaneState is a lane as its home publishes it in the lanes bucket.
type LaneState struct {
	LaneView
	Home string    `json:"home"`
	At   time.Time `json:"at"`
	// Oldest is when the oldest unconsumed human or peer obligation was
	// posted (zero when none); OverSLO says it is older than its class's
	// SLO.
	Oldest      time.Time `json:"oldest,omitzero"`
	OldestClass ob.Class  `json:"oldest_class,omitempty"`
	SLO         float64   `json:"slo_s,omitempty"`
	OverSLO     bool      `json:"over_slo"`
}

// LaneChanged notes that lane changed here (a post, an import, an ack, a
// park): its state is published once the coalescing window passes.
func (m *Member) LaneChanged(lane string) {
	m.lanesMu.Lock()
	m.dirty[lane] = true
	m.lanesMu.Unlock()
	m.pushLanes(m.opts.LanesCoalesce)
}

func (m *Member) pushLanes(in time.Duration) {
	r := m.runner.Load()
	if r == nil || !m.lanesArmed.CompareAndSwap(false, true) {
		return // not started, or already due
	}
	ctx, cancel := context.WithTimeout(context.Background(), m.conn.opts.RequestTimeout)
	defer cancel()
	if err := m.arm(ctx, *r, deadlines.OpPush, LanesKind, in); err != nil {
		m.lanesArmed.Store(false) // not armed: the next change tries again
	}
}

// LanesHandler is the handler of LanesKind: it hands the publish to the
// member's own goroutine (the broker is never waited for on the worker).
func (m *Member) LanesHandler() scheduler.Handler {
	return func(context.Context, scheduler.Firing) scheduler.Outcome {
		m.lanesArmed.Store(false)
		select {
		case m.lanesKick <- struct{}{}:
		default:
		}
		return scheduler.Succeeded()
	}
}

// publishLanes publishes the changed lanes each time the deadline fires.
func (m *Member) publishLanes(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-m.lanesKick:
		}
		m.lanesMu.Lock()
		dirty := m.dirty
		m.dirty = map[string]bool{}
		m.lanesMu.Unlock()
		if len(dirty) == 0 {
			continue
		}
		if err := m.publishLaneStates(ctx, dirty); err != nil {
			m.lanesMu.Lock()
			for l := range dirty {
				m.dirty[l] = true
			}
			m.lanesMu.Unlock()
			m.log.Debug().Err(err).Int("lanes", len(dirty)).Msg("fleet: lane state not published; retrying")
			m.pushLanes(5 * time.Second)
		}
	}
}

func (m *Member) publishLaneStates(ctx context.Context, dirty map[string]bool) error {
	kv, err := m.conn.KV(ctx, LanesBucket)
	if err != nil {
		return err
	}
	lanes, err := m.local.Lanes(ctx)
	if err != nil {
		return err
	}
	now := m.opts.Clock.Now()
	for _, l := range lanes {
		if !dirty[l.Lane] {
			continue
		}
		if home, ok := m.homes.Known(l.Lane); ok && home != m.opts.Host {
			continue
		}
		st := LaneState{LaneView: LaneView{Lane: l.Lane, Head: l.Head, Consumed: l.Consumed, Unconsumed: l.Counts},
			Home: m.opts.Host, At: now}
		if l.Counts.Human+l.Counts.Peer > 0 {
			if d, err := m.local.Digest(ctx, l.Lane, ""); err == nil && len(d.Messages) > 0 {
				o := d.Messages[0] // in sequence order: the oldest first
				st.Oldest, st.OldestClass = o.Posted, o.Class
				if m.opts.SLO != nil {
					slo := m.opts.SLO(o.Class)
					st.SLO, st.OverSLO = slo.Seconds(), slo > 0 && now.Sub(o.Posted) > slo
				}
			}
		}
		data, err := json.Marshal(st)
		if err != nil {
			continue
		}
		pctx, cancel := context.WithTimeout(ctx, m.conn.opts.RequestTimeout)
		_, err = kv.Put(pctx, Encode(l.Lane), data)
		cancel()
		if err != nil {
			return err
		}
	}
	return nil
}
