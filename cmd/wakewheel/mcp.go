package main

import (
	"context"
	"errors"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"
	"github.com/wakewheel/wakewheel/api"
	"github.com/wakewheel/wakewheel/mcpserver"
)

func (a *app) mcpCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "mcp",
		Short: "Serve agents over the Model Context Protocol on stdio (forwards to the daemon)",
		Long: `Serve the Model Context Protocol on stdin and stdout, for an agent host
to start as a subprocess. The adapter holds no state: every tool call is
forwarded to the daemon's socket (and counts as traffic there). With the
daemon down it keeps running and answers each call with a tool error that
says how to start it.

Tools: status, deadlines, alerts; remind (push, extend or cancel
reminder/<name>: an agent cannot touch the engine's own deadlines or make
the daemon run a command); post, wait, digest, ack, park, resume; watch,
unwatch, arm, disarm; lease_acquire, lease_renew, lease_release.

Register it with an agent host, for example:
  {"mcpServers": {"wakewheel": {"command": "wakewheel", "args": ["mcp"]}}}

Logs go to stderr; stdout carries only the protocol.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, _, err := a.config(cmd)
			if err != nil {
				return err
			}
			log := newLogger(cfg.Log, os.Stderr)
			ctx, stop := signal.NotifyContext(cmd.Context(), syscall.SIGTERM, syscall.SIGINT)
			defer stop()
			srv := mcpserver.New(api.NewClient(cfg.Engine.SocketPath), mcpserver.Options{Version: version})
			log.Debug().Str("socket", cfg.Engine.SocketPath).Msg("mcp adapter serving on stdio")
			err = srv.Run(ctx, &mcp.StdioTransport{})
			switch {
			case err == nil, errors.Is(err, io.EOF), errors.Is(err, context.Canceled):
				return nil // the agent host closed stdin, or asked us to stop
			}
			return err
		},
	}
}
