package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/wakewheel/wakewheel"
	"github.com/wakewheel/wakewheel/api"
)

// StatusInput takes no arguments.
type StatusInput struct{}

// DeadlinesInput filters the pending deadlines.
type DeadlinesInput struct {
	Prefix string `json:"prefix,omitempty" jsonschema:"only keys starting with this, e.g. reminder/ for your reminders"`
	After  string `json:"after,omitempty" jsonschema:"the next cursor of the previous page; empty for the first page"`
	Limit  int    `json:"limit,omitempty" jsonschema:"deadlines a page (default 100)"`
}

// DeadlinesOutput is one page of pending deadlines in key order.
type DeadlinesOutput struct {
	Deadlines []api.Deadline `json:"deadlines"`
	Next      string         `json:"next,omitempty"`
}

// RemindInput creates, moves or cancels the deadline reminder/<name>.
type RemindInput struct {
	Action  string `json:"action" jsonschema:"push: fire no later than in or at; extend: slide a window (fires after window without another extend, at most cap after the first); cancel: remove it"`
	Name    string `json:"name" jsonschema:"the reminder's name; its deadline key is reminder/<name>"`
	In      string `json:"in,omitempty" jsonschema:"push: a Go duration from now, e.g. 90s or 2h"`
	At      string `json:"at,omitempty" jsonschema:"push: an RFC 3339 time, e.g. 2026-12-01T09:00:00Z"`
	Window  string `json:"window,omitempty" jsonschema:"extend: the sliding window, a Go duration"`
	Cap     string `json:"cap,omitempty" jsonschema:"extend: the most the window may slide, from the first extend (default: the window)"`
	Message string `json:"message,omitempty" jsonschema:"text the daemon logs when the reminder fires"`
	Reset   bool   `json:"reset,omitempty" jsonschema:"push: set the due time even when that postpones a pending reminder (without it, push only pulls earlier)"`
	Lane    string `json:"lane,omitempty" jsonschema:"post an alert to this lane when the reminder fires (coalesced per reminder): schedule your own wake-up"`
	Note    string `json:"note,omitempty" jsonschema:"the body of the alert posted to lane"`
	Sync    bool   `json:"sync,omitempty" jsonschema:"make the change durable (fsync) before answering"`
}

// AlertsOutput lists alerts, oldest first.
type AlertsOutput struct {
	Alerts []wakewheel.Alert `json:"alerts"`
}

func (t tools) addEngineTools(s *mcp.Server) {
	add(s, "status", "What the daemon is doing: pending deadlines by kind, the next due time, runs and alerts. "+
		"Right after a start, state is \"loading\" with loading.percent (the other counts are zero, other tools wait for the load); then \"ready\".",
		readOnly, nil, t.status)
	add(s, "deadlines", "Pending deadlines with their due times, a page at a time in key order; pass next back as after for the following page.",
		readOnly, map[string]prop{
			"prefix": {maxLen: length(4096)},
			"after":  {maxLen: length(4096)},
			"limit":  {min: num(0), max: num(api.MaxDeadlinePage)},
		}, t.deadlines)
	add(s, "remind", "Push, extend or cancel a reminder of your own: the deadline reminder/<name>. "+
		"Push only ever pulls a due time earlier; extend slides a window up to its cap. "+
		"A reminder that falls due is logged and recorded (see fires); with lane, it posts an alert to that lane, "+
		"so you can schedule your own wake-up. It never runs a command.",
		mutating, map[string]prop{
			"action": {enum: []any{"push", "extend", "cancel"}},
			"name":   {maxLen: length(200)},
			"lane":   {maxLen: length(128)},
			"note":   {maxLen: length(4096)},
		}, t.remind)
	add(s, "alerts", "The alert log, oldest first: failed actions, exhausted retries, conflicts, fallbacks to polling.",
		readOnly, newestProps("alerts"), t.alerts)
}

func (t tools) status(ctx context.Context, _ StatusInput) (api.Status, error) {
	var st api.Status
	err := t.call(ctx, "status", http.MethodGet, "/v1/status", nil, &st)
	// The output schema says objects: an older daemon's missing map is empty.
	if st.Outcomes == nil {
		st.Outcomes = map[string]uint64{}
	}
	if st.ByKind == nil {
		st.ByKind = map[string]int{}
	}
	return st, err
}

func (t tools) deadlines(ctx context.Context, in DeadlinesInput) (DeadlinesOutput, error) {
	limit := in.Limit
	if limit == 0 {
		limit = 100
	}
	path := fmt.Sprintf("/v1/deadlines?prefix=%s&limit=%d", url.QueryEscape(in.Prefix), limit)
	if in.After != "" {
		path += "&after=" + url.QueryEscape(in.After)
	}
	var page api.DeadlinePage
	err := t.call(ctx, "deadlines", http.MethodGet, path, nil, &page)
	out := DeadlinesOutput{Deadlines: page.Deadlines, Next: page.Next}
	if out.Deadlines == nil {
		out.Deadlines = []api.Deadline{}
	}
	return out, err
}

func (t tools) remind(ctx context.Context, in RemindInput) (api.ReminderResult, error) {
	var res api.ReminderResult
	name, err := segment("name", in.Name)
	if err != nil {
		return res, fmt.Errorf("remind: %w", err)
	}
	switch in.Action {
	case "cancel":
		if in.In != "" || in.At != "" || in.Window != "" || in.Cap != "" || in.Message != "" || in.Lane != "" || in.Note != "" || in.Reset {
			return res, errors.New("remind: cancel takes only name (and sync)")
		}
		path := "/v1/reminders/" + name
		if in.Sync {
			path += "?sync=true"
		}
		err = t.call(ctx, "remind", http.MethodDelete, path, nil, &res)
		return res, err
	case "push":
		if in.Window != "" || in.Cap != "" {
			return res, errors.New("remind: push takes in or at; window and cap belong to extend")
		}
		if (in.In == "") == (in.At == "") {
			return res, errors.New("remind: push needs exactly one of in (a duration such as 90s) or at (an RFC 3339 time)")
		}
	case "extend":
		if in.In != "" || in.At != "" || in.Reset {
			return res, errors.New("remind: extend takes window (and cap); in, at and reset belong to push")
		}
		if in.Window == "" {
			return res, errors.New("remind: extend needs window (a duration such as 5m)")
		}
	default:
		return res, fmt.Errorf("remind: action %q: want push, extend or cancel", in.Action)
	}
	req := api.ReminderRequest{Name: in.Name, In: in.In, At: in.At, Window: in.Window, Cap: in.Cap,
		Message: in.Message, Reset: in.Reset, Lane: in.Lane, Note: in.Note, Sync: in.Sync}
	err = t.call(ctx, "remind", http.MethodPost, "/v1/reminders", req, &res)
	return res, err
}

func (t tools) alerts(ctx context.Context, in NewestInput) (AlertsOutput, error) {
	alerts, err := newest[wakewheel.Alert](ctx, t, "alerts", "/v1/alerts?limit=%d", in.Limit)
	return AlertsOutput{Alerts: alerts}, err
}
