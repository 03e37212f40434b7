package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/wakewheel/wakewheel/api"
)

// mcpSession starts `wakewheel mcp` as a subprocess of this test binary and
// connects the go-sdk's client to it over stdio.
func (h *home) mcpSession(t *testing.T) (*mcp.ClientSession, *bytes.Buffer) {
	t.Helper()
	cmd := h.command("mcp")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	client := mcp.NewClient(&mcp.Implementation{Name: "e2e-agent", Version: "test"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd, TerminateDuration: 2 * time.Second}, nil)
	if err != nil {
		t.Fatalf("connect to wakewheel mcp: %v\n%s", err, stderr.String())
	}
	t.Cleanup(func() {
		if err := cs.Close(); err != nil {
			t.Errorf("wakewheel mcp did not exit cleanly when stdin closed: %v\n%s", err, stderr.String())
		}
	})
	return cs, &stderr
}

func callTool(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) *mcp.CallToolResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 40*time.Second)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: protocol error: %v", name, err)
	}
	return res
}

func resultText(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

func structured(t *testing.T, name string, res *mcp.CallToolResult, v any) {
	t.Helper()
	if res.IsError {
		t.Fatalf("%s: tool error: %s", name, resultText(res))
	}
	b, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: structured content %s: %v", name, b, err)
	}
}

// TestMCPEndToEnd drives `wakewheel mcp` (a subprocess) with the go-sdk's
// client over stdio against a real daemon process: the handshake, the tool
// list, remind + deadlines + status, the daemon going away and coming back
// under the same adapter, and post → wait → ack when the daemon serves the
// obligations routes.
func TestMCPEndToEnd(t *testing.T) {
	h := newHome(t)
	d := h.start()
	cs, stderr := h.mcpSession(t)

	hello := cs.InitializeResult()
	if hello == nil || hello.ServerInfo.Name != "wakewheel" {
		t.Fatalf("handshake: %+v", hello)
	}
	tools, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range tools.Tools {
		names = append(names, tool.Name)
	}
	for _, want := range []string{"status", "deadlines", "remind", "alerts", "post", "wait", "digest", "ack", "park", "resume",
		"watch", "unwatch", "arm", "disarm", "lease_acquire", "lease_renew", "lease_release"} {
		if !slices.Contains(names, want) {
			t.Errorf("tool %s not listed (have %v)", want, names)
		}
	}

	var rr api.ReminderResult
	structured(t, "remind", callTool(t, cs, "remind", map[string]any{"action": "push", "name": "e2e", "in": "1h", "sync": true}), &rr)
	if rr.Key != "reminder/e2e" || !rr.Pending || !rr.Synced {
		t.Fatalf("remind: %+v", rr)
	}
	var dl struct{ Deadlines []api.Deadline }
	structured(t, "deadlines", callTool(t, cs, "deadlines", map[string]any{"prefix": "reminder/"}), &dl)
	if len(dl.Deadlines) != 1 || dl.Deadlines[0].Key != "reminder/e2e" {
		t.Fatalf("deadlines: %+v", dl.Deadlines)
	}
	var st api.Status
	structured(t, "status", callTool(t, cs, "status", nil), &st)
	if st.Pending != 1 || st.Socket != h.socket {
		t.Fatalf("status: %+v", st)
	}

	// The adapter holds no state: the daemon may go and come back.
	d.stop(t)
	res := callTool(t, cs, "status", nil)
	if !res.IsError || !strings.Contains(resultText(res), "not running") {
		t.Fatalf("status with the daemon down: IsError=%v %q", res.IsError, resultText(res))
	}
	d = h.start()
	defer d.stop(t)
	structured(t, "status", callTool(t, cs, "status", nil), &st)
	if st.Pending != 1 {
		t.Fatalf("after the restart: %+v", st)
	}

	// Bad arguments are tool errors; the adapter keeps serving.
	res = callTool(t, cs, "remind", map[string]any{"action": "push", "name": "x", "in": "soon"})
	if !res.IsError || !strings.Contains(resultText(res), "not a non-negative duration") {
		t.Fatalf("bad in: IsError=%v %q", res.IsError, resultText(res))
	}

	defer func() {
		if t.Failed() {
			t.Logf("wakewheel mcp stderr:\n%s", stderr.String())
		}
	}()
	if hasRoute(h.client(), "/v1/roots") {
		rootsAndLeases(t, cs)
	} else {
		t.Log("the daemon does not serve /v1/roots yet: watch, arm and leases are skipped")
	}
	if !hasRoute(h.client(), "/v1/lanes/probe/digest") {
		t.Skip("the daemon does not serve /v1/lanes/{lane}/digest yet: post → wait → ack is skipped")
	}
	postWaitAck(t, cs)
}

// hasRoute reports whether the daemon serves GET path.
func hasRoute(c *api.Client, path string) bool {
	var out any
	err := c.Do(context.Background(), http.MethodGet, path, nil, &out)
	var ae *api.Error
	return !(errors.As(err, &ae) && ae.Err.Code == "not_found" && strings.HasPrefix(ae.Err.Message, "no route"))
}

// rootsAndLeases: watch and arm a directory, disarm and forget it; take,
// renew and give back a lease.
func rootsAndLeases(t *testing.T, cs *mcp.ClientSession) {
	dir := t.TempDir()
	var st struct {
		Path  string `json:"path"`
		Armed bool   `json:"armed"`
	}
	structured(t, "watch", callTool(t, cs, "watch", map[string]any{"path": dir, "skip": []string{"build"}, "arm": true}), &st)
	if st.Path != dir || !st.Armed {
		t.Fatalf("watch: %+v", st)
	}
	structured(t, "disarm", callTool(t, cs, "disarm", map[string]any{"path": dir}), &st)
	if st.Armed {
		t.Fatalf("disarm: %+v", st)
	}
	structured(t, "arm", callTool(t, cs, "arm", map[string]any{"path": dir}), &st)
	if !st.Armed {
		t.Fatalf("arm: %+v", st)
	}
	var gone struct{ Removed bool }
	structured(t, "unwatch", callTool(t, cs, "unwatch", map[string]any{"path": dir}), &gone)
	if !gone.Removed {
		t.Fatal("unwatch removed nothing")
	}
	var lease struct {
		Name    string    `json:"name"`
		Expires time.Time `json:"expires"`
	}
	structured(t, "lease_acquire", callTool(t, cs, "lease_acquire", map[string]any{"name": dir, "ttl": "1m"}), &lease)
	if lease.Name != dir || time.Until(lease.Expires) < 50*time.Second {
		t.Fatalf("lease_acquire: %+v", lease)
	}
	if res := callTool(t, cs, "lease_acquire", map[string]any{"name": dir, "ttl": "1m"}); !res.IsError {
		t.Fatalf("a second acquire of a live lease succeeded: %s", resultText(res))
	}
	structured(t, "lease_renew", callTool(t, cs, "lease_renew", map[string]any{"name": dir, "ttl": "2m"}), &lease)
	if time.Until(lease.Expires) < 110*time.Second {
		t.Fatalf("lease_renew: %+v", lease)
	}
	var released struct{ Released bool }
	structured(t, "lease_release", callTool(t, cs, "lease_release", map[string]any{"name": dir}), &released)
	if !released.Released {
		t.Fatal("lease_release released nothing")
	}
}

// postWaitAck: a peer posts to a lane; the consumer's wait returns the wake
// with the message; its ack consumes it; the next digest is a no-op.
func postWaitAck(t *testing.T, cs *mcp.ClientSession) {
	waited := make(chan *mcp.CallToolResult, 1)
	go func() {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "wait",
			Arguments: map[string]any{"lane": "e2e", "who": "agent", "timeout": "10s", "open": true}})
		if err != nil {
			res = &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: err.Error()}}}
		}
		waited <- res
	}()
	time.Sleep(200 * time.Millisecond) // let the long poll start first (create makes the order not matter)
	posted := callTool(t, cs, "post", map[string]any{"lane": "e2e", "id": "msg-1", "class": "peer",
		"body": "please rebase", "create": true, "locator": map[string]any{"repo": "github.com/acme/app", "issue": "42"}})
	if posted.IsError {
		t.Fatalf("post: %s", resultText(posted))
	}
	type digest struct {
		Lane     string `json:"lane"`
		WakeID   string `json:"wake_id"`
		Head     uint64 `json:"head"`
		Noop     bool   `json:"noop"`
		Messages []struct {
			Body string `json:"body"`
		} `json:"messages"`
	}
	var wait struct {
		Woke   bool    `json:"woke"`
		Digest *digest `json:"digest"`
	}
	select {
	case res := <-waited:
		structured(t, "wait", res, &wait)
	case <-time.After(15 * time.Second):
		t.Fatal("wait did not return within 15s of the post")
	}
	if !wait.Woke || wait.Digest == nil || wait.Digest.Noop || wait.Digest.Head == 0 ||
		len(wait.Digest.Messages) != 1 || wait.Digest.Messages[0].Body != "please rebase" {
		t.Fatalf("wait returned %+v %+v", wait, wait.Digest)
	}
	if res := callTool(t, cs, "ack", map[string]any{"lane": "e2e", "upto": wait.Digest.Head, "action": "rebased"}); res.IsError {
		t.Fatalf("ack: %s", resultText(res))
	}
	var after digest
	structured(t, "digest", callTool(t, cs, "digest", map[string]any{"lane": "e2e", "who": "agent"}), &after)
	if !after.Noop || after.Head != wait.Digest.Head {
		t.Fatalf("after the ack the digest is not a no-op: %+v", after)
	}
	// Nothing unconsumed: a wait times out without a wake.
	structured(t, "wait", callTool(t, cs, "wait", map[string]any{"lane": "e2e", "timeout": "300ms", "after": wait.Digest.WakeID}), &wait)
	if wait.Woke {
		t.Fatalf("a wait with nothing unconsumed woke: %+v", wait.Digest)
	}
}
