package api

import (
	"context"
	"errors"
	"net/http"

	"github.com/wakewheel/wakewheel/lanerun"
)

// Agents is the daemon's agent delivery as the routes use it;
// *lanerun.Manager satisfies it.
type Agents interface {
	Report(ctx context.Context, lane string, r lanerun.Report) (lanerun.Session, error)
	Session(lane string) (lanerun.Session, bool)
	Status() []lanerun.LaneStatus
}

// RegisterAgents adds the agent delivery routes to s:
//
//	POST /v1/lanes/{lane}/agent   a hook's report (lanerun.Report) → the lane's session
//	GET  /v1/lanes/{lane}/agent   the lane's session (404 not_found without one)
//	GET  /v1/agents               every lane's session, runner and pane
//
// A report on an unknown lane is unknown_lane (404); a malformed one is
// bad_request.
func RegisterAgents(s *Server, a Agents) {
	h := agentRoutes{a}
	s.Handle("POST /v1/lanes/{lane}/agent", "agent", h.report)
	s.Handle("GET /v1/lanes/{lane}/agent", "agent", h.session)
	s.Handle("GET /v1/agents", "agents", h.status)
}

type agentRoutes struct{ a Agents }

func (h agentRoutes) report(w http.ResponseWriter, r *http.Request) error {
	var req lanerun.Report
	if err := decode(r, &req); err != nil {
		return err
	}
	sess, err := h.a.Report(r.Context(), r.PathValue("lane"), req)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, sess)
}

func (h agentRoutes) session(w http.ResponseWriter, r *http.Request) error {
	sess, ok := h.a.Session(r.PathValue("lane"))
	if !ok {
		return apiError{errNotFound, "no agent session was reported for lane " + r.PathValue("lane")}
	}
	return writeJSON(w, http.StatusOK, sess)
}

func (h agentRoutes) status(w http.ResponseWriter, r *http.Request) error {
	out := h.a.Status()
	if out == nil {
		out = []lanerun.LaneStatus{}
	}
	return writeJSON(w, http.StatusOK, out)
}

// AgentReport sends a hook's report on lane and returns the lane's session.
func (c *Client) AgentReport(ctx context.Context, lane string, r lanerun.Report) (lanerun.Session, error) {
	var out lanerun.Session
	return out, c.Do(ctx, http.MethodPost, lanePath(lane, "agent"), r, &out)
}

// AgentSession returns the lane's last reported session (ok false: none).
func (c *Client) AgentSession(ctx context.Context, lane string) (lanerun.Session, bool, error) {
	var out lanerun.Session
	err := c.Do(ctx, http.MethodGet, lanePath(lane, "agent"), nil, &out)
	var e *Error
	if errors.As(err, &e) && e.Err.Code == "not_found" {
		return lanerun.Session{}, false, nil
	}
	return out, err == nil, err
}

// Agents returns every lane's agent delivery status.
func (c *Client) Agents(ctx context.Context) ([]lanerun.LaneStatus, error) {
	var out []lanerun.LaneStatus
	return out, c.Do(ctx, http.MethodGet, "/v1/agents", nil, &out)
}
