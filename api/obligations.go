package api

import (
	"context"
	"net/http"
	"time"

	ob "github.com/wakewheel/wakewheel/obligations"
)

// Obligations is the daemon's obligations service as the routes use it;
// *wakes.Service satisfies it. Every call that changes state returns only
// once its records are durable.
type Obligations interface {
	Post(ctx context.Context, o ob.Obligation, create bool) (ob.Obligation, error)
	OpenLane(ctx context.Context, lane string) (ob.LaneStatus, error)
	CloseLane(ctx context.Context, lane string, force bool) (ob.LaneStatus, error)
	Lanes(ctx context.Context) ([]ob.LaneStatus, error)
	Digest(ctx context.Context, lane, who string) (ob.Digest, error)
	Wait(ctx context.Context, lane, who, after string, timeout time.Duration) (ob.Digest, bool, error)
	Ack(ctx context.Context, lane string, upto uint64, action string) (ob.LaneStatus, error)
	Park(ctx context.Context, lane string) (ob.Checkpoint, error)
	Resume(ctx context.Context, lane, who string, cp *ob.Checkpoint) (ob.Digest, error)
	Ledger(ctx context.Context, after uint64, limit int) ([]ob.Entry, uint64, error)
}

// MaxWait is the longest one wait request blocks (a longer timeout is cut
// to it): it stays under RequestTimeout. Clients loop for longer waits.
const MaxWait = 25 * time.Second

// PostRequest is the body of POST /v1/obligations. The lane must exist
// (opened by its consumer) unless Create is set. An empty ID gets a random
// one; a re-posted ID is answered with the original, unchanged.
type PostRequest struct {
	Lane    string     `json:"lane"`
	Class   string     `json:"class"`
	ID      string     `json:"id,omitempty"`
	Body    string     `json:"body"`
	Locator ob.Locator `json:"locator,omitzero"`
	Key     string     `json:"key,omitempty"` // coalescing key of an alert
	Canary  bool       `json:"canary,omitempty"`
	Create  bool       `json:"create,omitempty"`
	// Wait "forwarded": a post to a lane homed on another host of the
	// fleet is answered once the broker acknowledged it, not once it is
	// queued in this host's outbox.
	Wait string `json:"wait,omitempty"`
}

// PostResult answers a post: the obligation as stored (the original one for
// a duplicate), durable when it is returned.
type PostResult struct {
	Obligation ob.Obligation `json:"obligation"`
	Duplicate  bool          `json:"duplicate"`
	// Route, in a fleet: "local" (homed here), "queued" (durable in the
	// outbox, for a lane homed elsewhere) or "forwarded" (the broker
	// acknowledged it). Empty outside a fleet.
	Route string `json:"route,omitempty"`
}

// Router is an Obligations that may send a post to another host (a fleet
// member). The post route uses it when the service provides it.
type Router interface {
	Route(ctx context.Context, o ob.Obligation, create bool, wait string) (ob.Obligation, string, error)
}

// OpenLaneRequest is the body of POST /v1/lanes.
type OpenLaneRequest struct {
	Lane string `json:"lane"`
}

// CloseResult answers DELETE /v1/lanes/{lane}: the lane as it was when it
// was closed, and how many unconsumed obligations a forced close discarded.
type CloseResult struct {
	Closed    ob.LaneStatus `json:"closed"`
	Discarded int           `json:"discarded"`
}

// WaitResult answers GET /v1/lanes/{lane}/wait: the delivered digest when
// the lane woke, Woke false when the timeout passed first.
type WaitResult struct {
	Woke   bool       `json:"woke"`
	Digest *ob.Digest `json:"digest,omitempty"`
}

// AckRequest is the body of POST /v1/lanes/{lane}/ack: consume everything
// up to Upto (>= 1). Action names the consequential action taken, if any.
type AckRequest struct {
	Upto   *uint64 `json:"upto"`
	Action string  `json:"action,omitempty"`
}

// ResumeRequest is the body of POST /v1/lanes/{lane}/resume; without a
// Checkpoint the lane's last park is used.
type ResumeRequest struct {
	Who        string         `json:"who,omitempty"`
	Checkpoint *ob.Checkpoint `json:"checkpoint,omitempty"`
}

// LedgerPage answers GET /v1/ledger: entries after the requested sequence
// number, and Next, the sequence number to ask after for the next page.
type LedgerPage struct {
	Entries []ob.Entry `json:"entries"`
	Next    uint64     `json:"next"`
}

// RegisterObligations adds the obligations routes to s:
//
//	POST /v1/obligations                 post (PostRequest → PostResult)
//	POST /v1/obligations/stream          the same posts, on a connection
//	                                     switched to the post stream
//	GET  /v1/lanes                       every lane's cursors
//	POST /v1/lanes                       open a lane (OpenLaneRequest)
//	DELETE /v1/lanes/{lane}?force=       close a lane (CloseResult); refused
//	                                     while work is unconsumed, unless force
//	GET  /v1/lanes/{lane}/digest?who=    the digest, not delivered
//	GET  /v1/lanes/{lane}/wait?who=&after=&timeout=
//	                                     long poll (WaitResult) on a lane that
//	                                     exists: open it first (POST /v1/lanes)
//	POST /v1/lanes/{lane}/ack            AckRequest → lane status
//	POST /v1/lanes/{lane}/park           checkpoint
//	POST /v1/lanes/{lane}/resume         ResumeRequest → digest
//	GET  /v1/ledger?after=&limit=        LedgerPage
//
// Errors of the wake doctrine map to codes by the error table (errors.go):
// unknown_lane (404), unknown_class, missing_locator, bad_lane, bad_id,
// bad_body, bad_field (400), body_too_large (413), ack_past_received,
// bad_checkpoint, too_many_lanes and lane_busy (409). Messages name no CLI
// flag or tool argument: each adapter adds the hint in its caller's terms.
// A rejected request stores nothing.
func RegisterObligations(s *Server, svc Obligations) {
	h := obligationRoutes{svc: svc, srv: s}
	s.Handle("POST /v1/obligations", "post", h.post)
	s.Handle("POST "+PostStreamPath, "post", h.stream) // poststream.go
	s.Handle("GET /v1/lanes", "lanes", h.lanes)
	s.Handle("POST /v1/lanes", "lanes", h.open)
	s.Handle("DELETE /v1/lanes/{lane}", "lanes", h.close)
	s.Handle("GET /v1/lanes/{lane}/digest", "digest", h.digest)
	s.Handle("GET /v1/lanes/{lane}/wait", "wait", h.wait)
	s.Handle("POST /v1/lanes/{lane}/ack", "ack", h.ack)
	s.Handle("POST /v1/lanes/{lane}/park", "park", h.park)
	s.Handle("POST /v1/lanes/{lane}/resume", "resume", h.resume)
	s.HandleListing("GET /v1/ledger", "ledger", h.ledger)
}

type obligationRoutes struct {
	svc Obligations
	srv *Server // its shutdown ends the long polls
}

func (h obligationRoutes) lanes(w http.ResponseWriter, r *http.Request) error {
	out, err := h.svc.Lanes(r.Context())
	if err != nil {
		return err
	}
	if out == nil {
		out = []ob.LaneStatus{}
	}
	return writeJSON(w, http.StatusOK, out)
}

func (h obligationRoutes) open(w http.ResponseWriter, r *http.Request) error {
	var req OpenLaneRequest
	if err := decode(r, &req); err != nil {
		return err
	}
	st, err := h.svc.OpenLane(r.Context(), req.Lane)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, st)
}

func (h obligationRoutes) close(w http.ResponseWriter, r *http.Request) error {
	force, err := queryBool(r, "force")
	if err != nil {
		return err
	}
	was, err := h.svc.CloseLane(r.Context(), r.PathValue("lane"), force)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, CloseResult{Closed: was, Discarded: was.Counts.Total()})
}

func (h obligationRoutes) digest(w http.ResponseWriter, r *http.Request) error {
	d, err := h.svc.Digest(r.Context(), r.PathValue("lane"), r.URL.Query().Get("who"))
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, d)
}

func (h obligationRoutes) wait(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	timeout := MaxWait
	if v := q.Get("timeout"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d < 0 {
			return badf("timeout=%q is not a non-negative duration like 30s", v)
		}
		timeout = min(d, MaxWait)
	}
	ctx, cancel, stopped := h.srv.untilStopping(r.Context())
	defer cancel()
	d, woke, err := h.svc.Wait(ctx, r.PathValue("lane"), q.Get("who"), q.Get("after"), timeout)
	if err != nil && stopped() {
		return errStopping
	}
	if err != nil {
		return err
	}
	res := WaitResult{Woke: woke}
	if woke {
		res.Digest = &d
	}
	return writeJSON(w, http.StatusOK, res)
}

func (h obligationRoutes) ack(w http.ResponseWriter, r *http.Request) error {
	var req AckRequest
	if err := decode(r, &req); err != nil {
		return err
	}
	if req.Upto == nil || *req.Upto == 0 {
		return badf("ack needs upto >= 1: the sequence number of the last obligation consumed")
	}
	st, err := h.svc.Ack(r.Context(), r.PathValue("lane"), *req.Upto, req.Action)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, st)
}

func (h obligationRoutes) park(w http.ResponseWriter, r *http.Request) error {
	cp, err := h.svc.Park(r.Context(), r.PathValue("lane"))
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, cp)
}

func (h obligationRoutes) resume(w http.ResponseWriter, r *http.Request) error {
	var req ResumeRequest
	if r.ContentLength != 0 {
		if err := decode(r, &req); err != nil {
			return err
		}
	}
	d, err := h.svc.Resume(r.Context(), r.PathValue("lane"), req.Who, req.Checkpoint)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, d)
}

func (h obligationRoutes) ledger(w http.ResponseWriter, r *http.Request) error {
	after, limit, err := seqPage(r, 10000, 1000000)
	if err != nil {
		return err
	}
	entries, next, err := h.svc.Ledger(r.Context(), after, limit)
	if err != nil {
		return err
	}
	if entries == nil {
		entries = []ob.Entry{}
	}
	return writeJSON(w, http.StatusOK, LedgerPage{Entries: entries, Next: next})
}
