package main

import (
	"strings"
	"testing"

	"github.com/wakewheel/wakewheel/roots"
)

// An agent cannot erase the operator's configuration: MCP unwatch of a
// root registered from the CLI is refused (its commands and backlog
// stay), and MCP watch never resets its commands; a root the agent
// registered itself it may unwatch — unless the operator adopted it.
func TestMCPCannotUnwatchOrResetTheOperatorsRoot(t *testing.T) {
	h := newHome(t)
	d := h.start()
	defer d.stop(t)
	repo := t.TempDir()
	root, err := roots.CleanPath(repo)
	if err != nil {
		t.Fatal(err)
	}
	if text, err := h.run("watch", repo, "--ingest", "cat > /dev/null", "--reconcile", "true"); err != nil {
		t.Fatalf("watch: %v\n%s", err, text)
	}
	cs, _ := h.mcpSession(t)
	res := callTool(t, cs, "unwatch", map[string]any{"path": repo})
	if !res.IsError || !strings.Contains(resultText(res), "registered by the operator") {
		t.Fatalf("MCP unwatch of the operator's root: error %v: %s", res.IsError, resultText(res))
	}
	var st roots.Status
	structured(t, "watch", callTool(t, cs, "watch", map[string]any{"path": repo, "arm": true}), &st)
	if st.Ingest != "cat > /dev/null" || st.Reconcile != "true" || st.ByAgent {
		t.Fatalf("after MCP watch: ingest %q reconcile %q by_agent %v; want the operator's commands kept", st.Ingest, st.Reconcile, st.ByAgent)
	}
	if sts, err := h.client().Roots(t.Context(), root); err != nil || len(sts) != 1 || sts[0].Ingest == "" {
		t.Fatalf("the operator's root after the agent's calls: %+v %v", sts, err)
	}

	// The agent's own root: it may unwatch it, until the operator adopts it.
	own := t.TempDir()
	structured(t, "watch", callTool(t, cs, "watch", map[string]any{"path": own}), &st)
	if !st.ByAgent {
		t.Fatalf("a root an agent registered is not marked so: %+v", st)
	}
	var gone struct{ Removed bool }
	structured(t, "unwatch", callTool(t, cs, "unwatch", map[string]any{"path": own}), &gone)
	if !gone.Removed {
		t.Fatal("the agent could not unwatch its own root")
	}
	structured(t, "watch", callTool(t, cs, "watch", map[string]any{"path": own}), &st)
	if text, err := h.run("watch", own, "--ingest", "cat > /dev/null"); err != nil {
		t.Fatalf("watch: %v\n%s", err, text)
	}
	if res := callTool(t, cs, "unwatch", map[string]any{"path": own}); !res.IsError {
		t.Fatalf("the agent unwatched a root the operator adopted: %s", resultText(res))
	}
}
