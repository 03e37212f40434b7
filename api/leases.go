package api

import (
	"context"
	"net/http"
	"time"

	"github.com/wakewheel/wakewheel/roots"
)

// LeaseRequest is the body of POST /v1/leases/{name}/acquire and /renew
// (TTL, a Go duration, required) and /release (empty object).
type LeaseRequest struct {
	TTL string `json:"ttl,omitempty"`
}

// ReleaseResult answers a release: Released is false when the lease was
// not live.
type ReleaseResult struct {
	Name     string `json:"name"`
	Released bool   `json:"released"`
}

// The lease routes; RegisterRoots adds them.

func (h rootsHandler) leases(w http.ResponseWriter, r *http.Request) error {
	ls, err := h.rs.Leases(r.Context())
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, ls)
}

func (h rootsHandler) ttl(r *http.Request) (time.Duration, error) {
	var req LeaseRequest
	if err := decode(r, &req); err != nil {
		return 0, err
	}
	d, err := time.ParseDuration(req.TTL)
	if err != nil || d <= 0 {
		return 0, badf("lease: ttl=%q is not a positive duration like 5m", req.TTL)
	}
	return d, nil
}

func (h rootsHandler) acquire(w http.ResponseWriter, r *http.Request) error {
	return h.withTTL(w, r, h.rs.AcquireLease)
}

func (h rootsHandler) renew(w http.ResponseWriter, r *http.Request) error {
	return h.withTTL(w, r, h.rs.RenewLease)
}

// withTTL is acquire and renew: the body's ttl, then op on the named lease.
func (h rootsHandler) withTTL(w http.ResponseWriter, r *http.Request,
	op func(ctx context.Context, name string, ttl time.Duration) (roots.Lease, error)) error {
	ttl, err := h.ttl(r)
	if err != nil {
		return err
	}
	l, err := op(r.Context(), r.PathValue("name"), ttl)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, l)
}

func (h rootsHandler) release(w http.ResponseWriter, r *http.Request) error {
	var req LeaseRequest
	if err := decode(r, &req); err != nil {
		return err
	}
	if req.TTL != "" {
		return badf("lease release takes no ttl")
	}
	name := r.PathValue("name")
	released, err := h.rs.ReleaseLease(r.Context(), name)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, ReleaseResult{Name: name, Released: released})
}

var _ Roots = (*roots.Manager)(nil)
