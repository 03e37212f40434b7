package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/wakewheel/wakewheel/api"
	"github.com/wakewheel/wakewheel/deadlines"
	"github.com/wakewheel/wakewheel/internal/clock"
)

// Caller sends one request to the daemon's socket API and decodes its JSON
// answer into out; an error answer comes back as *api.Error. *api.Client
// implements it.
type Caller interface {
	Do(ctx context.Context, method, path string, body, out any) error
}

// Options describe the adapter to the agent.
type Options struct {
	Version string // reported as the server's version in the handshake
	// Clock times a wait that outlasts a down daemon (default: the wall clock).
	Clock clock.Clock
}

// instructions are what an agent reads about the server as a whole.
const instructions = `wakewheel is a cron-free scheduler daemon on this host. These tools forward to it.
Wake protocol: the cheapest way to be woken is your host's hook (wakewheel hook install claude-code|codex)
or the lane's headless runner, which cost no turn while idle; wait is the fallback: it long-polls and
returns the digest of everything unconsumed; act on each message; then ack up to the digest's head. A digest with noop=true needs no action.
Before clearing your context, park the lane; after, resume it. Reminders (remind) are deadlines of
your own under reminder/<name>; they never run commands.`

// New returns an MCP server whose tools forward to the daemon through c.
// Run it with server.Run(ctx, &mcp.StdioTransport{}).
func New(c Caller, opts Options) *mcp.Server {
	version := opts.Version
	if version == "" {
		version = "dev"
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "wakewheel", Title: "wakewheel scheduler", Version: version},
		&mcp.ServerOptions{Instructions: instructions})
	s.AddReceivingMiddleware(plainArguments)
	t := tools{c: c, clock: opts.Clock}
	if t.clock == nil {
		t.clock = clock.Real{}
	}
	t.addEngineTools(s)
	t.addObligationTools(s)
	t.addRootTools(s)
	t.addFireTools(s)
	return s
}

// tools forwards tool calls to the daemon.
type tools struct {
	c     Caller
	clock clock.Clock
}

// call forwards one request and turns its failure into the error a tool
// reports: what failed, why, and what to do.
func (t tools) call(ctx context.Context, tool, method, path string, body, out any) error {
	err := t.c.Do(ctx, method, path, body, out)
	if err == nil {
		return nil
	}
	var ae *api.Error
	switch {
	case errors.Is(err, api.ErrDaemonDown):
		return fmt.Errorf("%s: %w", tool, err)
	case errors.As(err, &ae) && ae.Err.Code == "not_found" && strings.HasPrefix(ae.Err.Message, "no route"):
		return fmt.Errorf("%s: this daemon does not offer %s (%s %s answered not_found); upgrade and restart the daemon",
			tool, tool, method, strings.SplitN(path, "?", 2)[0])
	case errors.As(err, &ae):
		return fmt.Errorf("%s: %s (%s)%s", tool, ae.Err.Message, ae.Err.Code, hint(tool, ae.Err.Code))
	case ctx.Err() != nil:
		return fmt.Errorf("%s: the call was cancelled before the daemon answered: %w", tool, ctx.Err())
	}
	return fmt.Errorf("%s: %w", tool, err)
}

// hint says, in the terms of a tool call (its arguments, never CLI flags),
// what the agent can do about an error code, or "".
func hint(tool, code string) string {
	switch {
	case code == "unknown_lane" && tool == "post":
		return "; if the lane name is right, post again with create: true"
	case code == "unknown_lane" && tool == "wait":
		return "; if the lane name is right, call wait again with open: true"
	case code == "unknown_lane":
		return "; check the lane name: a lane exists once its consumer waits on it with open: true"
	case code == "too_many_lanes":
		return "; ask the operator to close lanes nobody reads"
	}
	return ""
}

// segment checks one path segment taken from an argument (a lane, a lease
// or a reminder name) and escapes it. It refuses what could address
// another route once the path is cleaned.
func segment(what, v string) (string, error) {
	if v == "" {
		return "", fmt.Errorf("%s is required", what)
	}
	if err := deadlines.CheckName(what, v, maxSegment); err != nil {
		return "", err
	}
	return url.PathEscape(v), nil
}

// maxSegment bounds a name taken from an argument: the longest the daemon
// accepts (a lease name).
const maxSegment = 256

// addTool adds a tool whose handler cannot take the process down: a panic
// becomes the tool's error result. The go-sdk does not recover handler
// panics, and an adapter that dies leaves the agent without its tools.
func addTool[In, Out any](s *mcp.Server, tool *mcp.Tool, h mcp.ToolHandlerFor[In, Out]) {
	mcp.AddTool(s, tool, func(ctx context.Context, req *mcp.CallToolRequest, in In) (res *mcp.CallToolResult, out Out, err error) {
		defer func() {
			if p := recover(); p != nil {
				var zero Out
				res, out, err = nil, zero, fmt.Errorf("%s: internal error in wakewheel mcp: %v (please report it)", tool.Name, p)
			}
		}()
		return h(ctx, req, in)
	})
}

// add adds a tool from its parts: the input's schema is In's with the
// limits in props, the output's is Out's (outputSchema), and h answers
// the typed output. It goes through addTool, so a panic in h is an error
// result too.
func add[In, Out any](s *mcp.Server, name, desc string, ann *mcp.ToolAnnotations, props map[string]prop, h func(context.Context, In) (Out, error)) {
	tool := &mcp.Tool{Name: name, Description: desc, Annotations: ann,
		InputSchema: inputSchema[In](props), OutputSchema: outputSchema[Out]()}
	addTool(s, tool, func(ctx context.Context, _ *mcp.CallToolRequest, in In) (*mcp.CallToolResult, any, error) {
		out, err := h(ctx, in)
		return nil, out, err
	})
}

// readOnly and mutating are the annotations of the tools.
var (
	readOnly = &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: ptr(false)}
	mutating = &mcp.ToolAnnotations{DestructiveHint: ptr(false), OpenWorldHint: ptr(false)}
)

func ptr[T any](v T) *T { return &v }
