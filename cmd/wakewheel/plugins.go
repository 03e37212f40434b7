package main

import (
	"context"

	"github.com/rs/zerolog"
	"github.com/wakewheel/wakewheel/api"
	"github.com/wakewheel/wakewheel/configs"
	"github.com/wakewheel/wakewheel/internal/clock"
	"github.com/wakewheel/wakewheel/scheduler"
	"github.com/wakewheel/wakewheel/store"
)

// daemon is what a running daemon shares with its plugins.
type daemon struct {
	cfg      configs.Config
	loadOpts configs.LoadOptions // the layers cfg came from: live reload keeps flags above the file
	log      zerolog.Logger
	clock    clock.Clock
	db       *store.DB
	runner   *scheduler.Runner // set before serve
	srv      *api.Server       // set before serve
}

// plugin is one capability of the daemon (reminders, obligations, roots,
// ...). Each lives in a file of its own and registers itself from init, so
// capabilities are added without editing the daemon's wiring.
type plugin struct {
	name string
	// engine registers deadline handlers; it runs before the runner starts,
	// on the engine that already holds every reloaded deadline.
	engine func(d *daemon, eng *scheduler.Engine) error
	// serve adds API routes and starts background work; it runs once the
	// runner is running and before the socket accepts requests.
	serve func(ctx context.Context, d *daemon) error
	// close stops background work at shutdown, before the runner stops.
	close func()
}

var plugins []plugin

func registerPlugin(p plugin) { plugins = append(plugins, p) }
