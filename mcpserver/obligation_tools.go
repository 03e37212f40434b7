package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/wakewheel/wakewheel/api"
	ob "github.com/wakewheel/wakewheel/obligations"
)

// Wait bounds. One long poll stays inside the socket's request timeout
// (the daemon cuts it to api.MaxWait); an agent that wants to wait longer
// calls wait again.
const (
	DefaultWait = 20 * time.Second
	MaxWait     = api.MaxWait
)

// Locator is an obligation's hard locator: where the fact it reports lives
// (obligations.Locator's fields, described for the agent).
type Locator struct {
	Repo  string `json:"repo,omitempty" jsonschema:"repository, e.g. github.com/org/repo or a local path"`
	Issue string `json:"issue,omitempty" jsonschema:"issue or pull request, e.g. 42"`
	SHA   string `json:"sha,omitempty" jsonschema:"commit"`
	File  string `json:"file,omitempty" jsonschema:"file path inside the repository"`
}

// PostInput posts one obligation to a lane.
type PostInput struct {
	Lane    string   `json:"lane" jsonschema:"the lane (consumer) the obligation is for"`
	ID      string   `json:"id,omitempty" jsonschema:"optional: your idempotency id (posting the same id again returns the original); give one that is stable across your retries, or the daemon makes one"`
	Class   string   `json:"class" jsonschema:"human (a person's message), peer (another agent's request), digest (a machine summary) or alert: picks the re-wake cadence and SLO"`
	Body    string   `json:"body" jsonschema:"the message"`
	Locator *Locator `json:"locator,omitempty" jsonschema:"where the fact lives: required for peer, digest and alert (repo plus one of issue, sha, file)"`
	Key     string   `json:"key,omitempty" jsonschema:"coalescing key (alerts with the same key are listed once)"`
	Create  bool     `json:"create,omitempty" jsonschema:"create the lane if no consumer opened it yet (otherwise such a post is refused as a likely typo)"`
}

// LaneInput names a lane and the consumer reading it.
type LaneInput struct {
	Lane string `json:"lane" jsonschema:"the lane"`
	Who  string `json:"who,omitempty" jsonschema:"who reads it (your agent name), recorded in the digest and the ledger"`
}

// WaitInput long-polls a lane.
type WaitInput struct {
	Lane    string `json:"lane" jsonschema:"the lane to wait on; it must exist unless open is true"`
	Open    bool   `json:"open,omitempty" jsonschema:"open the lane if it does not exist yet (otherwise waiting on an unknown lane is refused as a likely typo)"`
	Who     string `json:"who,omitempty" jsonschema:"who waits (your agent name)"`
	After   string `json:"after,omitempty" jsonschema:"the wake_id of the last digest you captured: a wake you have already seen is not delivered again"`
	Timeout string `json:"timeout,omitempty" jsonschema:"how long to wait for a wake, a Go duration up to 25s (default 20s); call again to keep waiting"`
}

// AckInput acknowledges consumption.
type AckInput struct {
	Lane   string `json:"lane" jsonschema:"the lane"`
	Upto   uint64 `json:"upto" jsonschema:"the sequence number up to which every obligation is consumed (usually the digest's head)"`
	Action string `json:"action,omitempty" jsonschema:"the consequential action you took, if any (a commit, a reply): recorded in the ledger as a qualified action"`
}

func (t tools) addObligationTools(s *mcp.Server) {
	lane := map[string]prop{"lane": {maxLen: length(128)}, "who": {maxLen: length(256)}}
	wait := map[string]prop{"lane": {maxLen: length(128)}, "who": {maxLen: length(256)}, "after": {maxLen: length(512)}}
	ack := map[string]prop{"lane": {maxLen: length(128)}, "upto": {min: num(1)}, "action": {maxLen: length(256)}}
	post := map[string]prop{
		"lane":  {maxLen: length(128)},
		"id":    {maxLen: length(256)},
		"class": {enum: []any{"human", "peer", "digest", "alert"}},
		"key":   {maxLen: length(256)},
	}
	idempotent := &mcp.ToolAnnotations{DestructiveHint: ptr(false), IdempotentHint: true, OpenWorldHint: ptr(false)}
	add(s, "post", "Post an obligation to a lane: durable before the answer, idempotent on id. "+
		"The lane's consumer is woken at once, and re-woken at its class's cadence until it acks.", idempotent, post, t.post)
	add(s, "wait", "Prefer being woken by your host instead: `wakewheel hook install claude-code --lane L` (or codex) makes the host's Stop hook "+
		"hand you the lane's work, and a lane's runner or pane reaches you when you rest; those cost no turn while nothing happens. "+
		"Every return of wait is a turn of yours, recorded in the ledger (a return without work is a no-op turn). "+
		"wait long-polls until the lane has unconsumed obligations, then returns its digest: everything unconsumed since your last ack. "+
		"Answers {woke: true, digest} on a wake, {woke: false} when the timeout passes first (also when the daemon is down: it retries the socket until then). "+
		"A delivered digest counts as received (not consumed): ack what you act on.", mutating, wait, t.wait)
	add(s, "digest", "The lane's digest now, without waiting: counts per class, every human and peer message in order, machine digests coalesced, and a noop verdict.",
		readOnly, lane, t.digest)
	add(s, "ack", "Acknowledge consumption up to a sequence number (cumulative). Synced to disk before the answer. Acking below the current cursor is a no-op.",
		idempotent, ack, t.ack)
	add(s, "park", "Phase one of a park: flush and checkpoint the lane's consumed cursor. Once it answers you may clear your context; call resume afterwards.",
		mutating, lane, t.park)
	add(s, "resume", "Resume a parked lane: returns the digest of everything since the checkpoint.", mutating, lane, t.resume)
}

func (t tools) post(ctx context.Context, in PostInput) (api.PostResult, error) {
	if _, err := segment("lane", in.Lane); err != nil {
		return api.PostResult{}, fmt.Errorf("post: %w", err)
	}
	req := api.PostRequest{Lane: in.Lane, Class: in.Class, ID: in.ID, Body: in.Body, Key: in.Key, Create: in.Create}
	if in.Locator != nil {
		req.Locator = ob.Locator(*in.Locator) // the same fields: a new one in either fails to compile
	}
	var out api.PostResult
	err := t.call(ctx, "post", http.MethodPost, "/v1/obligations", req, &out)
	return out, err
}

func (t tools) wait(ctx context.Context, in WaitInput) (WaitResult, error) {
	seg, err := segment("lane", in.Lane)
	if err != nil {
		return WaitResult{}, fmt.Errorf("wait: %w", err)
	}
	timeout := DefaultWait
	if in.Timeout != "" {
		timeout, err = time.ParseDuration(in.Timeout)
		if err != nil || timeout < 0 || timeout > MaxWait {
			return WaitResult{}, fmt.Errorf("wait: timeout %q: want a duration from 0s to %s, e.g. 20s", in.Timeout, MaxWait)
		}
	}
	q := url.Values{"timeout": {timeout.String()}}
	if in.Who != "" {
		q.Set("who", in.Who)
	}
	if in.After != "" {
		q.Set("after", in.After)
	}
	open := ""
	if in.Open {
		open = in.Lane
	}
	res, err := t.waitOut(ctx, seg, open, q, timeout)
	if err != nil {
		return WaitResult{}, err
	}
	turn := map[string]any{"mode": ob.TurnMCPWait, "work": res.Woke}
	if res.Digest != nil {
		turn["wake_id"] = res.Digest.WakeID
	}
	// The turn is a cost measured: its record never fails the wait.
	_ = t.c.Do(ctx, http.MethodPost, "/v1/lanes/"+seg+"/agent", map[string]any{"turn": turn}, nil)
	return res, nil
}

// WaitResult answers the wait tool: the daemon's answer, and why it did
// not wake when the daemon could not be reached.
type WaitResult struct {
	api.WaitResult
	DaemonDown string `json:"daemon_down,omitempty"`
}

// SocketRetry is how often a wait retries a daemon that does not answer:
// a restarted daemon is found within a second, at one connect a second.
const SocketRetry = time.Second

// waitOut long-polls until timeout has passed, retrying the socket while
// the daemon is down (an agent told {woke: false} at once would call
// again at once: a hot loop of turns). It fails only for a rejected
// request. open, when set, is the lane each attempt opens before it waits.
func (t tools) waitOut(ctx context.Context, seg, open string, q url.Values, timeout time.Duration) (WaitResult, error) {
	deadline := t.clock.Now().Add(timeout)
	for first := true; ; first = false {
		left := deadline.Sub(t.clock.Now())
		if first {
			left = timeout
		}
		q.Set("timeout", max(left, 0).Round(time.Millisecond).String())
		var out api.WaitResult
		var err error
		if open != "" { // opened by the same attempt that waits: a daemon down is retried alike
			err = t.call(ctx, "wait", http.MethodPost, "/v1/lanes", api.OpenLaneRequest{Lane: open}, nil)
		}
		if err == nil {
			err = t.call(ctx, "wait", http.MethodGet, "/v1/lanes/"+seg+"/wait?"+q.Encode(), nil, &out)
		}
		if err == nil {
			return WaitResult{WaitResult: out}, nil
		}
		if !errors.Is(err, api.ErrDaemonDown) {
			return WaitResult{}, err
		}
		if left <= 0 {
			return WaitResult{DaemonDown: err.Error()}, nil
		}
		tm := t.clock.NewTimer(min(SocketRetry, left))
		select {
		case <-tm.C():
		case <-ctx.Done():
			tm.Stop()
			return WaitResult{DaemonDown: err.Error()}, nil
		}
	}
}

func (t tools) digest(ctx context.Context, in LaneInput) (ob.Digest, error) {
	suffix := "digest"
	if in.Who != "" {
		suffix += "?" + url.Values{"who": {in.Who}}.Encode()
	}
	var out ob.Digest
	err := t.laneCall(ctx, "digest", in.Lane, http.MethodGet, suffix, nil, &out)
	return out, err
}

func (t tools) ack(ctx context.Context, in AckInput) (ob.LaneStatus, error) {
	var out ob.LaneStatus
	if in.Upto == 0 {
		return out, errors.New("ack: upto must be at least 1: the head of the digest you consumed")
	}
	upto := in.Upto
	err := t.laneCall(ctx, "ack", in.Lane, http.MethodPost, "ack", api.AckRequest{Upto: &upto, Action: in.Action}, &out)
	return out, err
}

func (t tools) park(ctx context.Context, in LaneInput) (ob.Checkpoint, error) {
	var out ob.Checkpoint
	err := t.laneCall(ctx, "park", in.Lane, http.MethodPost, "park", nil, &out)
	return out, err
}

// resume resumes from the lane's last park (the checkpoint the daemon keeps).
func (t tools) resume(ctx context.Context, in LaneInput) (ob.Digest, error) {
	var out ob.Digest
	err := t.laneCall(ctx, "resume", in.Lane, http.MethodPost, "resume", api.ResumeRequest{Who: in.Who}, &out)
	return out, err
}

// laneCall is a lane tool's call to the daemon: the lane checked as one
// path segment (a refusal names the tool), then method on
// /v1/lanes/{lane}/{suffix}.
func (t tools) laneCall(ctx context.Context, tool, lane, method, suffix string, body, out any) error {
	seg, err := segment("lane", lane)
	if err != nil {
		return fmt.Errorf("%s: %w", tool, err)
	}
	return t.call(ctx, tool, method, "/v1/lanes/"+seg+"/"+suffix, body, out)
}
