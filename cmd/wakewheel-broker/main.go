package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/spf13/pflag"
	"github.com/wakewheel/wakewheel/api"
	"github.com/wakewheel/wakewheel/fleet/broker"
	"github.com/wakewheel/wakewheel/internal/logs"
)

func main() { os.Exit(run(os.Args[1:], os.Stderr)) }

// run is the program: its exit status for args.
func run(args []string, stderr *os.File) int {
	var o broker.Options
	var routes, level, format string
	f := pflag.NewFlagSet("wakewheel-broker", pflag.ContinueOnError)
	f.SetOutput(stderr)
	f.StringVar(&o.Name, "name", "", "this node's name, unique in the cluster (required)")
	f.StringVar(&o.Listen, "listen", "127.0.0.1:4222", "client host:port")
	f.StringVar(&o.Cluster, "cluster", "", "this node's cluster host:port (empty: a single node)")
	f.StringVar(&routes, "routes", "", "the other nodes' cluster URLs, comma-separated (nats://host:port,...)")
	f.StringVar(&o.StoreDir, "store", "", "directory of the JetStream files (required)")
	f.StringVar(&o.ConfigFile, "nats-config", "", "a nats-server config file for TLS, accounts and authorization")
	f.StringVar(&level, "log-level", "info", "trace, debug, info, warn or error")
	f.StringVar(&format, "log-format", "json", "console or json")
	f.Usage = func() {
		fmt.Fprintf(stderr, "wakewheel-broker: one node of the fleet's broker; usually run as `wakewheel broker` (see its --help)\n\n%s", f.FlagUsages())
	}
	if err := f.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return 0
		}
		fmt.Fprintf(stderr, "wakewheel: %s\n(see `wakewheel broker --help`)\n", err)
		return 2
	}
	if f.NArg() > 0 {
		fmt.Fprintf(stderr, "wakewheel: the broker takes no arguments, got %q\n(see `wakewheel broker --help`)\n", f.Args())
		return 2
	}
	for _, r := range strings.Split(routes, ",") {
		if r = strings.TrimSpace(r); r != "" {
			o.Routes = append(o.Routes, r)
		}
	}
	o.Logger = logs.New(stderr, level, format).With().Str("component", "broker").Str("node", o.Name).Logger()
	n, err := broker.Start(o)
	if err != nil {
		fmt.Fprintln(stderr, "wakewheel:", api.Plain(err.Error()))
		return 1
	}
	o.Logger.Info().Str("url", n.URL()).Str("store", o.StoreDir).Int("pid", os.Getpid()).Msg("broker ready")
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	if err := n.Run(ctx); err != nil {
		fmt.Fprintln(stderr, "wakewheel:", api.Plain(err.Error()))
		return 1
	}
	return 0
}
