package mcpserver

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"path/filepath"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/wakewheel/wakewheel/api"
	"github.com/wakewheel/wakewheel/roots"
)

// WatchInput registers a root. It deliberately has no ingest or reconcile
// field: the commands a root runs are the operator's to configure, never an
// agent's.
type WatchInput struct {
	Path string   `json:"path" jsonschema:"the directory to watch: absolute, or relative to where wakewheel mcp runs"`
	Skip []string `json:"skip,omitempty" jsonschema:"extra directory or file names to ignore, beside the defaults (node_modules, .git internals, ...)"`
	Arm  bool     `json:"arm,omitempty" jsonschema:"arm it too, in the same call"`
}

// RootInput names a root.
type RootInput struct {
	Path string `json:"path" jsonschema:"the root's directory: absolute, or relative to where wakewheel mcp runs"`
}

// LeaseInput names a lease and its time to live.
type LeaseInput struct {
	Name string `json:"name" jsonschema:"the lease's name, e.g. a root path or a task"`
	TTL  string `json:"ttl,omitempty" jsonschema:"acquire and renew: how long the lease lives without a renew, a Go duration (default 5m)"`
}

// LeaseNameInput names a lease (lease_release).
type LeaseNameInput struct {
	Name string `json:"name" jsonschema:"the lease's name, e.g. a root path or a task"`
}

// DefaultLeaseTTL is the TTL the lease tools send when none is given.
const DefaultLeaseTTL = 5 * time.Minute

func (t tools) addRootTools(s *mcp.Server) {
	path := map[string]prop{"path": {maxLen: length(4096)}}
	addTool(s, &mcp.Tool{
		Name: "watch",
		Description: "Register a directory as a root. Registration alone watches nothing: arm it to start detection. " +
			"The commands a root runs are configured by the operator; an agent cannot set them.",
		Annotations:  mutating,
		InputSchema:  inputSchema[WatchInput](path),
		OutputSchema: outputSchema[roots.Status](),
	}, t.watch)
	addTool(s, &mcp.Tool{
		Name:         "unwatch",
		Description:  "Forget a root that an agent registered: its watches, backlog and deadlines go. The operator's roots are refused.",
		Annotations:  &mcp.ToolAnnotations{DestructiveHint: ptr(true), IdempotentHint: true, OpenWorldHint: ptr(false)},
		InputSchema:  inputSchema[RootInput](path),
		OutputSchema: outputSchema[api.UnwatchResult](),
	}, t.unwatch)
	addTool(s, &mcp.Tool{
		Name:         "arm",
		Description:  "Arm a root: file changes under it push detection deadlines. Persisted across restarts.",
		Annotations:  mutating,
		InputSchema:  inputSchema[RootInput](path),
		OutputSchema: outputSchema[roots.Status](),
	}, t.arm)
	addTool(s, &mcp.Tool{
		Name:         "disarm",
		Description:  "Disarm a root: stop watching it, keep its registration.",
		Annotations:  mutating,
		InputSchema:  inputSchema[RootInput](path),
		OutputSchema: outputSchema[roots.Status](),
	}, t.disarm)
	lease := map[string]prop{"name": {maxLen: length(256)}}
	for _, verb := range []string{"acquire", "renew"} {
		addTool(s, &mcp.Tool{
			Name:         "lease_" + verb,
			Description:  leaseDescriptions[verb],
			Annotations:  mutating,
			InputSchema:  inputSchema[LeaseInput](lease),
			OutputSchema: outputSchema[roots.Lease](),
		}, t.lease(verb))
	}
	// release takes no ttl: its input does not list one.
	addTool(s, &mcp.Tool{
		Name:         "lease_release",
		Description:  leaseDescriptions["release"],
		Annotations:  mutating,
		InputSchema:  inputSchema[LeaseNameInput](lease),
		OutputSchema: outputSchema[api.ReleaseResult](),
	}, func(ctx context.Context, req *mcp.CallToolRequest, in LeaseNameInput) (*mcp.CallToolResult, any, error) {
		return t.lease("release")(ctx, req, LeaseInput{Name: in.Name})
	})
}

var leaseDescriptions = map[string]string{
	"acquire": "Take a named advisory lease for ttl. Automatic actions on the root it names (reconcile) yield while it is live.",
	"renew":   "Extend a lease you hold by ttl from now.",
	"release": "Give a lease back before its ttl runs out.",
}

// rootPath makes p absolute against this process's directory (the agent's
// workspace, usually), so the daemon, which runs elsewhere, gets the
// directory the agent meant.
func rootPath(tool, p string) (string, error) {
	if p == "" {
		return "", fmt.Errorf("%s: path is required", tool)
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", fmt.Errorf("%s: path %q: %w", tool, p, err)
	}
	return abs, nil
}

func (t tools) watch(ctx context.Context, _ *mcp.CallToolRequest, in WatchInput) (*mcp.CallToolResult, any, error) {
	p, err := rootPath("watch", in.Path)
	if err != nil {
		return nil, nil, err
	}
	// Never Ingest or Reconcile: see WatchInput.
	body := api.WatchRequest{Path: p, Skip: in.Skip, Arm: in.Arm, By: "agent"}
	var out roots.Status
	err = t.call(ctx, "watch", http.MethodPost, "/v1/roots", body, &out)
	return nil, out, err
}

func (t tools) unwatch(ctx context.Context, _ *mcp.CallToolRequest, in RootInput) (*mcp.CallToolResult, any, error) {
	p, err := rootPath("unwatch", in.Path)
	if err != nil {
		return nil, nil, err
	}
	var out api.UnwatchResult
	err = t.call(ctx, "unwatch", http.MethodDelete, "/v1/roots?"+url.Values{"path": {p}, "by": {"agent"}}.Encode(), nil, &out)
	return nil, out, err
}

func (t tools) arm(ctx context.Context, _ *mcp.CallToolRequest, in RootInput) (*mcp.CallToolResult, any, error) {
	return t.rootVerb(ctx, "arm", in)
}

func (t tools) disarm(ctx context.Context, _ *mcp.CallToolRequest, in RootInput) (*mcp.CallToolResult, any, error) {
	return t.rootVerb(ctx, "disarm", in)
}

func (t tools) rootVerb(ctx context.Context, verb string, in RootInput) (*mcp.CallToolResult, any, error) {
	p, err := rootPath(verb, in.Path)
	if err != nil {
		return nil, nil, err
	}
	var out roots.Status
	err = t.call(ctx, verb, http.MethodPost, "/v1/roots/"+verb, api.RootRequest{Path: p}, &out)
	return nil, out, err
}

func (t tools) lease(verb string) mcp.ToolHandlerFor[LeaseInput, any] {
	tool := "lease_" + verb
	return func(ctx context.Context, _ *mcp.CallToolRequest, in LeaseInput) (*mcp.CallToolResult, any, error) {
		name, err := segment("name", in.Name)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", tool, err)
		}
		var body api.LeaseRequest
		if verb != "release" {
			ttl := DefaultLeaseTTL
			if in.TTL != "" {
				ttl, err = time.ParseDuration(in.TTL)
				if err != nil || ttl <= 0 {
					return nil, nil, fmt.Errorf("%s: ttl %q: want a positive duration such as 5m", tool, in.TTL)
				}
			}
			body.TTL = ttl.String()
		} else if in.TTL != "" {
			return nil, nil, fmt.Errorf("%s: release takes no ttl", tool)
		}
		var out any
		if verb == "release" {
			var rel api.ReleaseResult
			err = t.call(ctx, tool, http.MethodPost, "/v1/leases/"+name+"/"+verb, body, &rel)
			return nil, rel, err
		}
		var l roots.Lease
		err = t.call(ctx, tool, http.MethodPost, "/v1/leases/"+name+"/"+verb, body, &l)
		out = l
		return nil, out, err
	}
}
