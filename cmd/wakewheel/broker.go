package main

import (
	"context"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/spf13/cobra"
	"github.com/wakewheel/wakewheel/fleet"
)

// brokerCmd runs one node of the fleet's broker: an embedded nats-server
// with JetStream and SyncAlways, in its own process.
func (a *app) brokerCmd() *cobra.Command {
	var o fleet.BrokerOptions
	var routes string
	cmd := &cobra.Command{
		Use:   "broker",
		Short: "Run a node of the fleet's broker (NATS with JetStream, every write synced)",
		Long: `Run one node of the fleet's broker in the foreground until SIGTERM or SIGINT:
an embedded nats-server with JetStream, fsyncing every message before it
is acknowledged. Run one per host of a small fleet, three or more for a
replicated (R3) stream; or point fleet.url at a NATS cluster you already run.

  wakewheel broker --name a --listen 127.0.0.1:4222 --store /var/lib/wakewheel-broker \
      --cluster 127.0.0.1:6222 --routes nats://127.0.0.1:6223,nats://127.0.0.1:6224

A node listening beyond loopback needs TLS and authorization, given in a
nats-server config file (--nats-config).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, _, err := a.config(cmd)
			if err != nil {
				return err
			}
			o.Logger = newLogger(cfg.Log, os.Stderr).With().Str("component", "broker").Str("node", o.Name).Logger()
			for _, r := range strings.Split(routes, ",") {
				if r = strings.TrimSpace(r); r != "" {
					o.Routes = append(o.Routes, r)
				}
			}
			b, err := fleet.StartBroker(o)
			if err != nil {
				return err
			}
			o.Logger.Info().Str("url", b.URL()).Str("store", o.StoreDir).Int("pid", os.Getpid()).Msg("broker ready")
			ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
			defer stop()
			return b.Run(ctx)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.Name, "name", "", "this node's name, unique in the cluster (required)")
	f.StringVar(&o.Listen, "listen", "127.0.0.1:4222", "client host:port")
	f.StringVar(&o.Cluster, "cluster", "", "this node's cluster host:port (empty: a single node)")
	f.StringVar(&routes, "routes", "", "the other nodes' cluster URLs, comma-separated (nats://host:port,...)")
	f.StringVar(&o.StoreDir, "store", "", "directory of the JetStream files (required)")
	f.StringVar(&o.ConfigFile, "nats-config", "", "a nats-server config file for TLS, accounts and authorization")
	_ = cmd.MarkFlagRequired("name")
	_ = cmd.MarkFlagRequired("store")
	return cmd
}
