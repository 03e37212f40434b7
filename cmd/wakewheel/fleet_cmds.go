package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/wakewheel/wakewheel/configs"
	"github.com/wakewheel/wakewheel/fleet"
	"github.com/wakewheel/wakewheel/internal/clock"
	"github.com/wakewheel/wakewheel/liveness"
)

// fleetFeed makes a monitor also watch the fleet's beacons bucket: it
// dials fleet.url (retrying while the broker is down) and sets o.Feed.
func fleetFeed(cfg configs.Config, o *liveness.MonitorOptions) (func(), error) {
	if cfg.Fleet.URL == "" {
		return nil, errors.New("monitor --fleet: fleet.url is not set (the broker's nats://host:port)")
	}
	log := o.Logger.With().Str("feed", "fleet").Logger()
	conn, err := fleet.Dial(fleetOptions(cfg.Fleet), "wakewheel monitor", true, log)
	if err != nil {
		return nil, fmt.Errorf("monitor --fleet: %w", err)
	}
	o.Feed = func(ctx context.Context, m *liveness.Monitor) {
		fleet.WatchBeacons(ctx, conn, m, fleet.WatchOptions{BlindAfter: o.Period + o.Grace, Clock: clock.Real{}, Log: log})
	}
	return conn.Close, nil
}
