package main

import (
	"context"
	"errors"
	"fmt"
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
			// An agent host sees only "connection closed" from an adapter
			// that exits: with a config problem it starts anyway, and the
			// problem is named in the answers (see configNoted).
			cfg, _, _ := a.config(cmd)
			log := newLogger(cfg.Log, os.Stderr)
			socket, problem, err := a.socketPath(cmd)
			if err != nil {
				problem = err
			}
			var caller mcpserver.Caller = api.NewClient(socket)
			if problem != nil {
				log.Warn().Str("problem", api.Plain(problem.Error())).Msg("the config has a problem; tool answers name it")
				caller = configNoted{c: caller, problem: api.Plain(problem.Error()), unusable: err != nil}
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), syscall.SIGTERM, syscall.SIGINT)
			defer stop()
			srv := mcpserver.New(caller, mcpserver.Options{Version: version})
			log.Debug().Str("socket", socket).Msg("mcp adapter serving on stdio")
			err = srv.Run(ctx, &mcp.StdioTransport{})
			switch {
			case err == nil, errors.Is(err, io.EOF), errors.Is(err, context.Canceled):
				return nil // the agent host closed stdin, or asked us to stop
			}
			return err
		},
	}
}

// configNoted is the adapter's caller when the config does not validate.
// When it still names the socket, calls go through (a running daemon keeps
// its previous config) and a failure names the config problem beside its
// own; when it does not, every call fails naming the problem.
type configNoted struct {
	c        mcpserver.Caller
	problem  string
	unusable bool // the socket's path did not resolve
}

func (n configNoted) Do(ctx context.Context, method, path string, body, out any) error {
	if n.unusable {
		return fmt.Errorf("the wakewheel config has a problem, so the daemon's socket is unknown: %s; fix the config file (`wakewheel config show` names each problem) and call again", n.problem)
	}
	if err := n.c.Do(ctx, method, path, body, out); err != nil {
		return fmt.Errorf("%w (note: the wakewheel config has a problem: %s)", err, n.problem)
	}
	return nil
}
