package api

import (
	"context"
	"net/http"
	"time"

	"github.com/wakewheel/wakewheel/roots"
)

// Roots is the root registry and the leases as the routes use them;
// *roots.Manager satisfies it.
type Roots interface {
	Watch(ctx context.Context, spec roots.Spec) (roots.Status, error)
	Unwatch(ctx context.Context, path string) (bool, error)
	UnwatchByAgent(ctx context.Context, path string) (bool, error)
	Arm(ctx context.Context, path string) (roots.Status, error)
	Disarm(ctx context.Context, path string) (roots.Status, error)
	Retry(ctx context.Context, path string) (roots.Status, error)
	Statuses(ctx context.Context) ([]roots.Status, error)
	AcquireLease(ctx context.Context, name string, ttl time.Duration) (roots.Lease, error)
	RenewLease(ctx context.Context, name string, ttl time.Duration) (roots.Lease, error)
	ReleaseLease(ctx context.Context, name string) (bool, error)
	Leases(ctx context.Context) ([]roots.Lease, error)
}

// WatchRequest is the body of POST /v1/roots: register a root, or update
// the fields given (absent fields keep their value; an empty command
// removes it). Ingest and Reconcile are command lines run with /bin/sh -c
// in the root; only same-uid clients reach the socket (see doc.go: the
// MCP adapter never sends them).
type WatchRequest struct {
	Path      string   `json:"path"`
	Ingest    *string  `json:"ingest,omitempty"`
	Reconcile *string  `json:"reconcile,omitempty"`
	Skip      []string `json:"skip,omitempty"`
	Candidate *bool    `json:"candidate,omitempty"`
	Arm       bool     `json:"arm,omitempty"`
	// By is "agent" when an agent asks (the MCP adapter sends it): it can
	// set no command, and a root it registers is marked as an agent's.
	By string `json:"by,omitempty"`
}

// RootRequest is the body of POST /v1/roots/arm and /v1/roots/disarm.
type RootRequest struct {
	Path string `json:"path"`
}

// UnwatchResult answers DELETE /v1/roots?path=.
type UnwatchResult struct {
	Path    string `json:"path"`
	Removed bool   `json:"removed"`
}

// RegisterRoots adds the roots routes to s:
//
//	POST   /v1/roots          watch   register or update a root (WatchRequest) → roots.Status
//	DELETE /v1/roots?path=P   unwatch forget a root → UnwatchResult (&by=agent: only a root an agent registered)
//	GET    /v1/roots          roots   every root's status → []roots.Status
//	POST   /v1/roots/arm      arm     {path} → roots.Status
//	POST   /v1/roots/disarm   disarm  {path} → roots.Status
//	POST   /v1/roots/retry    retry   {path} → roots.Status: drain the backlog and detect now
//
// and the lease routes (leases.go):
//
//	GET  /v1/leases                   leases  live leases → []roots.Lease
//	POST /v1/leases/{name}/acquire    lease   {ttl} → roots.Lease; 409 lease_held if live
//	POST /v1/leases/{name}/renew      lease   {ttl} → roots.Lease; 404 not_held if not live
//	POST /v1/leases/{name}/release    lease   {} → ReleaseResult
//
// A lease name with slashes (a root path) travels escaped in its one segment.
func RegisterRoots(s *Server, rs Roots) {
	h := rootsHandler{rs}
	s.Handle("POST /v1/roots", "watch", h.watch)
	s.Handle("DELETE /v1/roots", "unwatch", h.unwatch)
	s.Handle("GET /v1/roots", "roots", h.list)
	s.Handle("POST /v1/roots/arm", "arm", h.arm)
	s.Handle("POST /v1/roots/disarm", "disarm", h.disarm)
	s.Handle("POST /v1/roots/retry", "retry", h.retry)
	s.Handle("GET /v1/leases", "leases", h.leases)
	s.Handle("POST /v1/leases/{name}/acquire", "lease", h.acquire)
	s.Handle("POST /v1/leases/{name}/renew", "lease", h.renew)
	s.Handle("POST /v1/leases/{name}/release", "lease", h.release)
}

// rootsHandler serves the roots and the lease routes.
type rootsHandler struct{ rs Roots }

func (h rootsHandler) watch(w http.ResponseWriter, r *http.Request) error {
	var req WatchRequest
	if err := decode(r, &req); err != nil {
		return err
	}
	if req.Path == "" {
		return badf("watch: path is required")
	}
	byAgent, err := byAgent(req.By)
	if err != nil {
		return err
	}
	st, err := h.rs.Watch(r.Context(), roots.Spec{Path: req.Path, Ingest: req.Ingest, Reconcile: req.Reconcile,
		Skip: req.Skip, Candidate: req.Candidate, Arm: req.Arm, ByAgent: byAgent})
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, st)
}

func (h rootsHandler) unwatch(w http.ResponseWriter, r *http.Request) error {
	path := r.URL.Query().Get("path")
	if path == "" {
		return badf("unwatch: query parameter path is required")
	}
	agent, err := byAgent(r.URL.Query().Get("by"))
	if err != nil {
		return err
	}
	unwatch := h.rs.Unwatch
	if agent {
		unwatch = h.rs.UnwatchByAgent
	}
	removed, err := unwatch(r.Context(), path)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, UnwatchResult{Path: path, Removed: removed})
}

// byAgent reads the "by" of a roots request: "" (the operator) or "agent".
func byAgent(by string) (bool, error) {
	switch by {
	case "":
		return false, nil
	case "agent":
		return true, nil
	}
	return false, badf("by: %q is not a requester; use \"agent\" or leave it out", by)
}

func (h rootsHandler) list(w http.ResponseWriter, r *http.Request) error {
	sts, err := h.rs.Statuses(r.Context())
	if err != nil {
		return err
	}
	if p := r.URL.Query().Get("path"); p != "" {
		clean, err := roots.CleanPath(p)
		if err != nil {
			return err
		}
		var one []roots.Status
		for _, st := range sts {
			if st.Path == clean {
				one = append(one, st)
			}
		}
		sts = one
	}
	if sts == nil {
		sts = []roots.Status{}
	}
	return writeJSON(w, http.StatusOK, sts)
}

func (h rootsHandler) arm(w http.ResponseWriter, r *http.Request) error {
	return h.rootVerb(w, r, h.rs.Arm)
}

func (h rootsHandler) disarm(w http.ResponseWriter, r *http.Request) error {
	return h.rootVerb(w, r, h.rs.Disarm)
}

func (h rootsHandler) retry(w http.ResponseWriter, r *http.Request) error {
	return h.rootVerb(w, r, h.rs.Retry)
}

func (h rootsHandler) rootVerb(w http.ResponseWriter, r *http.Request, fn func(context.Context, string) (roots.Status, error)) error {
	var req RootRequest
	if err := decode(r, &req); err != nil {
		return err
	}
	if req.Path == "" {
		return badf("path is required")
	}
	st, err := fn(r.Context(), req.Path)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, st)
}
