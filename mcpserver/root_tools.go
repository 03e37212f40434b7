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

// LeaseNameInput names a lease (lease_release).
type LeaseNameInput struct {
	Name string `json:"name" jsonschema:"the lease's name, e.g. a root path or a task"`
}

// LeaseInput names a lease and its time to live.
type LeaseInput struct {
	LeaseNameInput
	TTL string `json:"ttl,omitempty" jsonschema:"acquire and renew: how long the lease lives without a renew, a Go duration (default 5m)"`
}

// DefaultLeaseTTL is the TTL the lease tools send when none is given.
const DefaultLeaseTTL = 5 * time.Minute

func (t tools) addRootTools(s *mcp.Server) {
	path := map[string]prop{"path": {maxLen: length(4096)}}
	add(s, "watch", "Register a directory as a root. Registration alone watches nothing: arm it to start detection. "+
		"The commands a root runs are configured by the operator; an agent cannot set them.", mutating, path, t.watch)
	add(s, "unwatch", "Forget a root that an agent registered: its watches, backlog and deadlines go. The operator's roots are refused.",
		&mcp.ToolAnnotations{DestructiveHint: ptr(true), IdempotentHint: true, OpenWorldHint: ptr(false)}, path, t.unwatch)
	add(s, "arm", "Arm a root: file changes under it push detection deadlines. Persisted across restarts.", mutating, path, t.rootVerb("arm"))
	add(s, "disarm", "Disarm a root: stop watching it, keep its registration.", mutating, path, t.rootVerb("disarm"))
	lease := map[string]prop{"name": {maxLen: length(256)}}
	for _, verb := range []string{"acquire", "renew"} {
		add(s, "lease_"+verb, leaseDescriptions[verb], mutating, lease, func(ctx context.Context, in LeaseInput) (roots.Lease, error) {
			var l roots.Lease
			err := t.lease(ctx, verb, in, &l)
			return l, err
		})
	}
	// release takes no ttl: its input does not list one.
	add(s, "lease_release", leaseDescriptions["release"], mutating, lease, func(ctx context.Context, in LeaseNameInput) (api.ReleaseResult, error) {
		var rel api.ReleaseResult
		err := t.lease(ctx, "release", LeaseInput{LeaseNameInput: in}, &rel)
		return rel, err
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

// rootCall makes path absolute (rootPath) and calls the daemon into out
// with the method, route and body that req builds from the absolute path.
func (t tools) rootCall(ctx context.Context, tool, path string, out any, req func(abs string) (method, route string, body any)) error {
	p, err := rootPath(tool, path)
	if err != nil {
		return err
	}
	method, route, body := req(p)
	return t.call(ctx, tool, method, route, body, out)
}

func (t tools) watch(ctx context.Context, in WatchInput) (roots.Status, error) {
	var out roots.Status
	err := t.rootCall(ctx, "watch", in.Path, &out, func(p string) (string, string, any) {
		// Never Ingest or Reconcile: see WatchInput.
		return http.MethodPost, "/v1/roots", api.WatchRequest{Path: p, Skip: in.Skip, Arm: in.Arm, By: "agent"}
	})
	return out, err
}

func (t tools) unwatch(ctx context.Context, in RootInput) (api.UnwatchResult, error) {
	var out api.UnwatchResult
	err := t.rootCall(ctx, "unwatch", in.Path, &out, func(p string) (string, string, any) {
		return http.MethodDelete, "/v1/roots?" + url.Values{"path": {p}, "by": {"agent"}}.Encode(), nil
	})
	return out, err
}

// rootVerb is the handler of arm and disarm: POST /v1/roots/{verb}.
func (t tools) rootVerb(verb string) func(context.Context, RootInput) (roots.Status, error) {
	return func(ctx context.Context, in RootInput) (roots.Status, error) {
		var out roots.Status
		err := t.rootCall(ctx, verb, in.Path, &out, func(p string) (string, string, any) {
			return http.MethodPost, "/v1/roots/" + verb, api.RootRequest{Path: p}
		})
		return out, err
	}
}

// lease calls POST /v1/leases/{name}/{verb} into out: acquire and renew
// send a ttl (DefaultLeaseTTL when none is given), release none.
func (t tools) lease(ctx context.Context, verb string, in LeaseInput, out any) error {
	tool := "lease_" + verb
	name, err := segment("name", in.Name)
	if err != nil {
		return fmt.Errorf("%s: %w", tool, err)
	}
	var body api.LeaseRequest
	if verb != "release" {
		ttl := DefaultLeaseTTL
		if in.TTL != "" {
			ttl, err = time.ParseDuration(in.TTL)
			if err != nil || ttl <= 0 {
				return fmt.Errorf("%s: ttl %q: want a positive duration such as 5m", tool, in.TTL)
			}
		}
		body.TTL = ttl.String()
	} else if in.TTL != "" {
		return fmt.Errorf("%s: release takes no ttl", tool)
	}
	return t.call(ctx, tool, http.MethodPost, "/v1/leases/"+name+"/"+verb, body, out)
}
