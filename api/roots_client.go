package api

import (
	"context"
	"net/http"
	"net/url"
	"time"

	"github.com/wakewheel/wakewheel/roots"
)

// Watch registers or updates a root.
func (c *Client) Watch(ctx context.Context, req WatchRequest) (roots.Status, error) {
	var out roots.Status
	return out, c.Do(ctx, http.MethodPost, "/v1/roots", req, &out)
}

// Unwatch forgets a root.
func (c *Client) Unwatch(ctx context.Context, path string) (UnwatchResult, error) {
	var out UnwatchResult
	return out, c.Do(ctx, http.MethodDelete, "/v1/roots?"+url.Values{"path": {path}}.Encode(), nil, &out)
}

// Arm arms a registered root.
func (c *Client) Arm(ctx context.Context, path string) (roots.Status, error) {
	var out roots.Status
	return out, c.Do(ctx, http.MethodPost, "/v1/roots/arm", RootRequest{Path: path}, &out)
}

// Disarm disarms a root.
func (c *Client) Disarm(ctx context.Context, path string) (roots.Status, error) {
	var out roots.Status
	return out, c.Do(ctx, http.MethodPost, "/v1/roots/disarm", RootRequest{Path: path}, &out)
}

// RetryRoot drains a root's backlog again now (its retries spent, its
// command fixed) and detects.
func (c *Client) RetryRoot(ctx context.Context, path string) (roots.Status, error) {
	var out roots.Status
	return out, c.Do(ctx, http.MethodPost, "/v1/roots/retry", RootRequest{Path: path}, &out)
}

// Roots lists every root's status (only path's, if path is not empty).
func (c *Client) Roots(ctx context.Context, path string) ([]roots.Status, error) {
	var out []roots.Status
	p := "/v1/roots"
	if path != "" {
		p += "?" + url.Values{"path": {path}}.Encode()
	}
	return out, c.Do(ctx, http.MethodGet, p, nil, &out)
}

// AcquireLease takes the lease name for ttl.
func (c *Client) AcquireLease(ctx context.Context, name string, ttl time.Duration) (roots.Lease, error) {
	var out roots.Lease
	return out, c.Do(ctx, http.MethodPost, "/v1/leases/"+url.PathEscape(name)+"/acquire", LeaseRequest{TTL: ttl.String()}, &out)
}

// RenewLease moves a live lease's expiry to ttl from now.
func (c *Client) RenewLease(ctx context.Context, name string, ttl time.Duration) (roots.Lease, error) {
	var out roots.Lease
	return out, c.Do(ctx, http.MethodPost, "/v1/leases/"+url.PathEscape(name)+"/renew", LeaseRequest{TTL: ttl.String()}, &out)
}

// ReleaseLease gives a lease back.
func (c *Client) ReleaseLease(ctx context.Context, name string) (ReleaseResult, error) {
	var out ReleaseResult
	return out, c.Do(ctx, http.MethodPost, "/v1/leases/"+url.PathEscape(name)+"/release", LeaseRequest{}, &out)
}

// Leases lists the live leases.
func (c *Client) Leases(ctx context.Context) ([]roots.Lease, error) {
	var out []roots.Lease
	return out, c.Do(ctx, http.MethodGet, "/v1/leases", nil, &out)
}
