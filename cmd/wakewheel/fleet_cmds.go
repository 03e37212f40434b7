package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/rs/zerolog"
	"github.com/spf13/cobra"

	"github.com/wakewheel/wakewheel/api"
	"github.com/wakewheel/wakewheel/configs"
	"github.com/wakewheel/wakewheel/fleet"
	"github.com/wakewheel/wakewheel/internal/clock"
	"github.com/wakewheel/wakewheel/liveness"
	ob "github.com/wakewheel/wakewheel/obligations"
)

// fleetFeed makes a monitor also watch the fleet's beacons bucket: it
// dials fleet.url (retrying while the broker is down) and sets o.Feed.
func fleetFeed(cfg configs.Config, o *liveness.MonitorOptions, alertLane string) (func(), error) {
	if cfg.Fleet.URL == "" {
		return nil, errors.New("monitor --fleet: fleet.url is not set (the broker's nats://host:port)")
	}
	log := o.Logger.With().Str("feed", "fleet").Logger()
	conn, err := fleet.Dial(fleetOptions(cfg.Fleet), "wakewheel monitor", true, log)
	if err != nil {
		return nil, fmt.Errorf("monitor --fleet: %w", err)
	}
	if alertLane != "" {
		if err := ob.ValidateLane(alertLane); err != nil {
			conn.Close()
			return nil, fmt.Errorf("monitor --alert-lane: %w", err)
		}
		o.Sink = fleet.AlarmToLane(conn, alertLane, cfg.Monitor.AlertTimeout, clock.Real{})
	}
	o.Feed = func(ctx context.Context, m *liveness.Monitor) {
		fleet.WatchBeacons(ctx, conn, m, fleet.WatchOptions{BlindAfter: o.Period + o.Grace,
			ProbeEvery: cfg.Monitor.ProbeEvery, ProbeLate: cfg.Monitor.ProbeLate, Clock: clock.Real{}, Log: log})
	}
	return conn.Close, nil
}

// fleetRoute serves the member's own state on GET /v1/fleet.
func fleetRoute(m *fleet.Member) func(w http.ResponseWriter, r *http.Request) error {
	return func(w http.ResponseWriter, _ *http.Request) error {
		w.Header().Set("Content-Type", "application/json")
		return json.NewEncoder(w).Encode(m.Status())
	}
}

// fleetStatusView is what `fleet status --json` prints: this host's
// member (from its daemon), and the fleet (from the broker); each part
// says why it is missing when it is.
type fleetStatusView struct {
	Member      *fleet.MemberStatus `json:"member,omitempty"`
	MemberError string              `json:"member_error,omitempty"`
	Fleet       *fleet.FleetStatus  `json:"fleet,omitempty"`
	FleetError  string              `json:"fleet_error,omitempty"`
}

func (a *app) fleetCmd() *cobra.Command {
	status := a.fleetVerb(&cobra.Command{
		Use:   "status [--json]",
		Short: "Hosts (beacon age, version, outbox, import, what waits in the broker) and lanes (home, unconsumed per class)",
		Args:  cobra.NoArgs,
	}, 15*time.Second, func(ctx context.Context, cfg configs.Config, c *api.Client) (any, string, error) {
		var v fleetStatusView
		var ms fleet.MemberStatus
		if err := c.Do(ctx, http.MethodGet, "/v1/fleet", nil, &ms); err != nil {
			v.MemberError = "this host's daemon: " + err.Error()
		} else {
			v.Member = &ms
		}
		conn, err := dialFleet(cfg, "status")
		if err == nil {
			defer conn.Close()
			var fs fleet.FleetStatus
			if fs, err = fleet.ReadFleet(ctx, conn, time.Now()); err == nil {
				v.Fleet = &fs
			}
		}
		if err != nil {
			v.FleetError = err.Error()
		}
		var b strings.Builder
		if v.Member != nil {
			fmt.Fprintf(&b, "this host: %s, %s; forwarded %d, imported %d, terminated %d\n\n", v.Member.Host, v.Member.State,
				v.Member.Forwarded, v.Member.Imported, v.Member.Terminated)
		} else {
			fmt.Fprintf(&b, "this host: %s\n\n", v.MemberError)
		}
		if v.Fleet != nil {
			b.WriteString(v.Fleet.Text())
		} else {
			fmt.Fprintf(&b, "fleet: %s\n", v.FleetError)
		}
		return v, b.String(), nil
	})
	return group("fleet", "The fleet of hosts sharing lanes and beacons through a broker", status, a.fleetParityCmd())
}

// fleetVerb builds a fleet verb: the start they share is the config,
// refused (exit 2) when this host is in no fleet, and a context that
// bounds run's work by timeout.
func (a *app) fleetVerb(cmd *cobra.Command, timeout time.Duration,
	run func(ctx context.Context, cfg configs.Config, c *api.Client) (any, string, error)) *cobra.Command {
	return a.verb(cmd, func(cmd *cobra.Command, c *api.Client, _ []string) (any, string, error) {
		cfg, _, err := a.config(cmd)
		if err != nil {
			return nil, "", err
		}
		if cfg.Fleet.URL == "" {
			return nil, "", exitError{code: 2, err: fmt.Errorf("fleet %s: fleet.url is not set: this host is not in a fleet", cmd.Name())}
		}
		ctx, cancel := context.WithTimeout(cmd.Context(), timeout)
		defer cancel()
		return run(ctx, cfg, c)
	})
}

// dialFleet dials the fleet's broker once, without retry: a verb reports
// a broker that is down; it does not wait for it.
func dialFleet(cfg configs.Config, verb string) (*fleet.Conn, error) {
	return fleet.Dial(fleetOptions(cfg.Fleet), "wakewheel fleet "+verb, false, zerolog.Nop())
}

// fleetParityCmd is the source-parity check: every obligation the stream
// holds for this home is in this home's ledger.
func (a *app) fleetParityCmd() *cobra.Command {
	return a.fleetVerb(&cobra.Command{
		Use:   "parity [--json]",
		Short: "Check that every obligation the stream holds for this host is in its ledger (exit 1 when one is missing)",
		Args:  cobra.NoArgs,
	}, 2*time.Minute, func(ctx context.Context, cfg configs.Config, client *api.Client) (any, string, error) {
		entries, err := client.LedgerAll(ctx)
		if err != nil {
			return nil, "", fmt.Errorf("fleet parity: this host's ledger: %w", err)
		}
		p, err := homeParity(ctx, cfg, client, entries)
		if err != nil {
			return nil, "", fmt.Errorf("fleet parity: %w", err)
		}
		var b strings.Builder
		fmt.Fprintf(&b, "home %s: %d in the stream, %d in the ledger, %d in flight, %d malformed (terminated), %d missing\n",
			p.Home, p.InStream, p.Found, p.InFlight, p.Malformed, len(p.Missing))
		for _, m := range p.Missing {
			fmt.Fprintf(&b, "missing: lane %s id %s from %s (stream seq %d)\n", m.Lane, m.ID, m.Origin, m.StreamSeq)
		}
		if len(p.Missing) > 0 {
			return p, b.String(), exitError{code: 1, err: fmt.Errorf("fleet parity: %d obligations the broker acknowledged are not in %s's ledger", len(p.Missing), p.Home)}
		}
		return p, b.String(), nil
	})
}
