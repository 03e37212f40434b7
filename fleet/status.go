package fleet

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// MemberStatus is what a daemon knows of its own part in the fleet, served
// on GET /v1/fleet: it answers when the broker does not.
type MemberStatus struct {
	Host        string `json:"host"`
	URL         string `json:"url"`
	BrokerUp    bool   `json:"broker_up"`
	Ready       bool   `json:"ready"` // the stream and buckets are set up
	Importing   bool   `json:"importing"`
	Outbox      int    `json:"outbox"`
	OutboxMax   int    `json:"outbox_max"`
	Forwarded   uint64 `json:"forwarded"`
	Imported    uint64 `json:"imported"`
	Terminated  uint64 `json:"terminated"`
	Redelivered uint64 `json:"redelivered"`
	BeaconsSent uint64 `json:"beacons_sent"`
	// State says it in words: "connected", or what does not work now.
	State string `json:"state"`
}

// Status is the member's own state now.
func (m *Member) Status() MemberStatus {
	s := MemberStatus{Host: m.opts.Host, URL: m.opts.URL, BrokerUp: m.conn.Up(), Ready: m.conn.ready.Load(),
		Importing: m.importing.Load(), Outbox: m.outbox.Len(), OutboxMax: m.opts.OutboxMax,
		Forwarded: m.forwarded.Load(), Imported: m.imported.Load(), Terminated: m.terminated.Load(),
		Redelivered: m.redelivered.Load(), BeaconsSent: m.beaconsSent.Load()}
	switch {
	case !s.BrokerUp:
		s.State = fmt.Sprintf("broker unreachable: local lanes work, remote posts queue in the outbox (%d of %d), import paused", s.Outbox, s.OutboxMax)
	case !s.Ready:
		s.State = "connected, setting up the stream and buckets"
	case !s.Importing:
		s.State = "connected, import starting"
	default:
		s.State = "connected"
	}
	return s
}

// FleetStatus is the fleet as the broker shows it.
type FleetStatus struct {
	At    time.Time     `json:"at"`
	Hosts []HostView    `json:"hosts"`
	Lanes []LaneSummary `json:"lanes"`
	// LanesError says why the lanes' published states could not be read
	// ("" when they were): every lane then shows as not reported.
	LanesError string `json:"lanes_error,omitempty"`
}

// HostView is one host: its last beacon, and what waits for it in the
// stream (delivered to its import and not acked, or not delivered yet).
type HostView struct {
	HostBeacon
	AgeSeconds float64 `json:"age_s"`
	Stale      bool    `json:"stale"` // older than its TTL: the host may be down
	Waiting    uint64  `json:"waiting_in_broker"`
}

// LaneSummary is one lane and its home.
type LaneSummary struct {
	Lane string `json:"lane"`
	Home string `json:"home"`
	LaneView
	Reported bool `json:"reported"` // the home published the lane's state
	// Waiting is what the stream holds for the lane beyond its home's
	// import ack floor: posted elsewhere, not imported yet (waiting.go).
	Waiting uint64 `json:"waiting_in_broker"`
	// WaitingError says why Waiting could not be read ("" when it was).
	WaitingError string `json:"waiting_error,omitempty"`
	// Oldest unconsumed human or peer obligation, against its SLO.
	Oldest  time.Time `json:"oldest,omitzero"`
	SLO     float64   `json:"slo_s,omitempty"`
	OverSLO bool      `json:"over_slo"`
}

// ReadFleet reads the fleet's state from the broker: every beacon, every
// lane home, and each import consumer's backlog.
func ReadFleet(ctx context.Context, c *Conn, now time.Time) (FleetStatus, error) {
	st := FleetStatus{At: now, Hosts: []HostView{}, Lanes: []LaneSummary{}}
	beacons, err := c.KV(ctx, BeaconsBucket)
	if err != nil {
		return st, err
	}
	byHost := map[string]*HostView{}
	if err := eachValue(ctx, beacons, func(_ string, v []byte, created time.Time) {
		var b HostBeacon
		if json.Unmarshal(v, &b) != nil {
			return
		}
		age := now.Sub(b.At)
		byHost[b.Host] = &HostView{HostBeacon: b, AgeSeconds: age.Seconds(), Stale: age.Seconds() > b.TTL}
	}); err != nil {
		return st, err
	}
	homes, err := c.KV(ctx, HomesBucket)
	if err != nil {
		return st, err
	}
	published := map[string]LaneState{}
	lanes, err := c.KV(ctx, LanesBucket)
	if err == nil {
		err = eachValue(ctx, lanes, func(_ string, v []byte, _ time.Time) {
			var ls LaneState
			if json.Unmarshal(v, &ls) == nil {
				published[ls.Lane] = ls
			}
		})
	}
	if err != nil {
		st.LanesError = err.Error()
	}
	if err := eachValue(ctx, homes, func(key string, v []byte, _ time.Time) {
		lane, err := Decode(key)
		if err != nil {
			return
		}
		ls := LaneSummary{Lane: lane, Home: string(v)}
		if p, ok := published[lane]; ok && p.Home == ls.Home {
			ls.LaneView, ls.Reported = p.LaneView, true
			ls.Oldest, ls.OverSLO, ls.SLO = p.Oldest, p.OverSLO, p.SLO
		}
		st.Lanes = append(st.Lanes, ls)
	}); err != nil {
		return st, err
	}
	waiting := map[string]map[string]uint64{} // home → lane → count
	waitErr := map[string]string{}
	for i := range st.Lanes {
		l := &st.Lanes[i]
		if _, done := waiting[l.Home]; !done && waitErr[l.Home] == "" {
			w, err := waitingByLane(ctx, c, l.Home)
			if err != nil {
				waitErr[l.Home] = err.Error()
			} else {
				waiting[l.Home] = w
			}
		}
		l.Waiting, l.WaitingError = waiting[l.Home][l.Lane], waitErr[l.Home]
	}
	for host, h := range byHost {
		if ci, err := c.js.Consumer(ctx, StreamName, ConsumerName(host)); err == nil {
			if info, err := ci.Info(ctx); err == nil {
				h.Waiting = info.NumPending + uint64(info.NumAckPending)
			}
		}
		st.Hosts = append(st.Hosts, *h)
	}
	sort.Slice(st.Hosts, func(i, j int) bool { return st.Hosts[i].Host < st.Hosts[j].Host })
	sort.Slice(st.Lanes, func(i, j int) bool { return st.Lanes[i].Lane < st.Lanes[j].Lane })
	return st, nil
}

func eachValue(ctx context.Context, kv jetstream.KeyValue, fn func(key string, v []byte, created time.Time)) error {
	keys, err := kv.ListKeys(ctx)
	if err != nil {
		return fmt.Errorf("%w: listing %s: %v", ErrUnreachable, kv.Bucket(), err)
	}
	for k := range keys.Keys() {
		e, err := kv.Get(ctx, k)
		if errors.Is(err, jetstream.ErrKeyNotFound) {
			continue // expired between the listing and the read
		}
		if err != nil {
			return fmt.Errorf("%w: reading %s/%s: %v", ErrUnreachable, kv.Bucket(), k, err)
		}
		fn(k, e.Value(), e.Created())
	}
	return nil
}

// Text renders the fleet's state for a terminal.
func (st FleetStatus) Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%-16s %-8s %-10s %-8s %-9s %-8s %-10s %s\n", "HOST", "BEACON", "VERSION", "OUTBOX", "IMPORTING", "WAITING", "WAKES/NOOP", "")
	for _, h := range st.Hosts {
		note := ""
		if h.Stale {
			note = "STALE (no beacon within its TTL: down or cut off?)"
		}
		fmt.Fprintf(&b, "%-16s %-8s %-10s %-8d %-9v %-8d %-10s %s\n", h.Host, fmt.Sprintf("%.1fs", h.AgeSeconds), h.Version,
			h.Outbox, h.Importing, h.Waiting, fmt.Sprintf("%d/%d", h.Wakes, h.Noops), note)
	}
	safetyText(&b, st.Hosts)
	fmt.Fprintf(&b, "\n%-24s %-16s %-6s %-9s %-22s %-8s %s\n", "LANE", "HOME", "HEAD", "CONSUMED", "UNCONSUMED h/p/d/a", "WAITING", "OLDEST (against its SLO)")
	for _, l := range st.Lanes {
		waiting := fmt.Sprint(l.Waiting)
		if l.WaitingError != "" {
			waiting = "?"
		}
		if !l.Reported {
			why := "(its home has not published it)"
			if st.LanesError != "" {
				why = "(its published state could not be read: " + st.LanesError + ")"
			}
			fmt.Fprintf(&b, "%-24s %-16s %-6s %-9s %-22s %-8s %s\n", l.Lane, l.Home, "-", "-", "-", waiting, why)
			continue
		}
		u := l.Unconsumed
		oldest := "-"
		if !l.Oldest.IsZero() {
			oldest = fmt.Sprintf("%s of %s", st.At.Sub(l.Oldest).Round(time.Second), time.Duration(l.SLO*float64(time.Second)))
			if l.OverSLO {
				oldest += " OVER SLO"
			}
		}
		fmt.Fprintf(&b, "%-24s %-16s %-6d %-9d %-22s %-8s %s\n", l.Lane, l.Home, l.Head, l.Consumed,
			fmt.Sprintf("%d/%d/%d/%d", u.Human, u.Peer, u.Digest, u.Alert), waiting, oldest)
	}
	for _, l := range st.Lanes {
		if l.WaitingError != "" {
			fmt.Fprintf(&b, "waiting in the broker for %s unknown: %s\n", l.Home, l.WaitingError)
			break
		}
	}
	return b.String()
}

// safetyText renders each host's safety vector: its verdict, how many
// checks it has, and each failing one with its value against its limit
// (`fleet status --json` has them all).
func safetyText(b *strings.Builder, hosts []HostView) {
	fmt.Fprintf(b, "\n%-16s %-8s %s\n", "HOST", "SAFETY", "OVER THE LATEST LEDGER ENTRIES (failing checks: value/limit)")
	for _, h := range hosts {
		if h.Safety == nil {
			fmt.Fprintf(b, "%-16s %-8s %s\n", h.Host, "-", "(not in its beacon yet)")
			continue
		}
		verdict := "pass"
		if !h.Safety.Pass {
			verdict = "FAIL"
		}
		var failing []string
		for _, m := range h.Safety.Metrics {
			if !m.Pass {
				failing = append(failing, fmt.Sprintf("%s=%s/%s", m.Label(), m.Short(m.Value), m.Short(m.Limit)))
			}
		}
		fmt.Fprintf(b, "%-16s %-8s %d posts, %d consumed, %d unconsumed; %d checks, %d failing", h.Host, verdict,
			h.Safety.Posts, h.Safety.Consumed, h.Safety.Unconsumed, len(h.Safety.Metrics), len(failing))
		if len(failing) > 0 {
			fmt.Fprintf(b, ": %s", strings.Join(failing, " "))
		}
		b.WriteString("\n")
	}
}
