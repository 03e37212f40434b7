package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wakewheel/wakewheel/api"
	ob "github.com/wakewheel/wakewheel/obligations"
)

// hookEvent runs `wakewheel hook claude-code` with one event on stdin.
func (h *home) hookEvent(t *testing.T, lane string, ev map[string]any, args ...string) (stdout, stderr string, took time.Duration) {
	t.Helper()
	b, _ := json.Marshal(ev)
	cmd := h.command(append([]string{"hook", "claude-code", "--lane", lane}, args...)...)
	cmd.Stdin = bytes.NewReader(b)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	start := time.Now()
	if err := cmd.Run(); err != nil {
		t.Fatalf("hook exited with %v (it must always exit 0)\n%s", err, errb.String())
	}
	return out.String(), errb.String(), time.Since(start)
}

type hookAnswer struct {
	Decision, Reason   string
	HookSpecificOutput *struct{ HookEventName, AdditionalContext string }
}

func decodeAnswer(t *testing.T, out string) hookAnswer {
	t.Helper()
	var a hookAnswer
	if strings.TrimSpace(out) == "" {
		return a
	}
	if err := json.Unmarshal([]byte(out), &a); err != nil {
		t.Fatalf("hook answer %q: %v", out, err)
	}
	return a
}

func TestHookStopBlocksOncePerWakeAndFailsOpen(t *testing.T) {
	h := newHome(t)
	d := h.start()
	c := h.client()
	ctx := context.Background()
	if _, err := c.OpenLane(ctx, "rev"); err != nil {
		t.Fatal(err)
	}
	stop := func(active bool) map[string]any {
		return map[string]any{"session_id": "s1", "transcript_path": "/t", "cwd": h.dir, "hook_event_name": "Stop", "stop_hook_active": active}
	}

	// SessionStart on an empty lane: context says nothing is unconsumed.
	out, _, _ := h.hookEvent(t, "rev", map[string]any{"session_id": "s1", "cwd": h.dir, "hook_event_name": "SessionStart", "source": "startup"})
	if a := decodeAnswer(t, out); a.HookSpecificOutput == nil || !strings.Contains(a.HookSpecificOutput.AdditionalContext, "Nothing is unconsumed") {
		t.Fatalf("SessionStart answer %q", out)
	}

	// Work posted: the Stop hook blocks with it.
	if _, err := c.Post(ctx, api.PostRequest{Lane: "rev", Class: "human", ID: "m1", Body: "review PR 7"}); err != nil {
		t.Fatal(err)
	}
	out, _, _ = h.hookEvent(t, "rev", stop(false), "--idle", "1s")
	a := decodeAnswer(t, out)
	if a.Decision != "block" || !strings.Contains(a.Reason, "review PR 7") || !strings.Contains(a.Reason, "--upto 1") {
		t.Fatalf("Stop with work: %q", out)
	}
	// The agent did not ack; it stops again within the chain: no second block.
	out, _, took := h.hookEvent(t, "rev", stop(true), "--idle", "1s")
	if decodeAnswer(t, out).Decision != "" || took < time.Second {
		t.Fatalf("second stop in the chain: %q after %s (want no block after the 1s idle window)", out, took)
	}
	// A post while the hook waits: it blocks with the new wake.
	go func() {
		time.Sleep(300 * time.Millisecond)
		c.Post(ctx, api.PostRequest{Lane: "rev", Class: "human", ID: "m2", Body: "and PR 8"})
	}()
	out, _, took = h.hookEvent(t, "rev", stop(true), "--idle", "20s")
	if a := decodeAnswer(t, out); a.Decision != "block" || !strings.Contains(a.Reason, "and PR 8") || took > 10*time.Second {
		t.Fatalf("stop while a post arrives: %q after %s", out, took)
	}
	if _, err := c.Ack(ctx, "rev", 2, "reviewed"); err != nil {
		t.Fatal(err)
	}
	// PreCompact parks.
	h.hookEvent(t, "rev", map[string]any{"session_id": "s1", "hook_event_name": "PreCompact", "trigger": "auto"})
	ls, _ := c.Lanes(ctx)
	if len(ls) != 1 || ls[0].Parked == nil || ls[0].Parked.Consumed != 2 {
		t.Fatalf("lanes after PreCompact: %+v", ls)
	}

	// The ledger has the two blocks as hook turns that found work.
	entries, err := c.LedgerAll(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var turns []ob.Entry
	for _, e := range entries {
		if e.Kind == ob.EntryTurn {
			turns = append(turns, e)
		}
	}
	if len(turns) != 2 || turns[0].Mode != ob.TurnHook || !turns[0].Work || turns[1].WakeID != "rev@2" {
		t.Fatalf("turns in the ledger: %+v", turns)
	}

	// Codex speaks the same Stop protocol: its hook blocks with the digest too.
	c.Post(ctx, api.PostRequest{Lane: "rev", Class: "human", ID: "mc", Body: "codex task"})
	b, _ := json.Marshal(map[string]any{"session_id": "cx1", "turn_id": "t1", "cwd": h.dir, "hook_event_name": "Stop",
		"stop_hook_active": false, "last_assistant_message": "done", "model": "m"})
	cx := h.command("hook", "codex", "--lane", "rev", "--idle", "1s")
	cx.Stdin = bytes.NewReader(b)
	cxOut, err := cx.Output()
	if a := decodeAnswer(t, string(cxOut)); err != nil || a.Decision != "block" || !strings.Contains(a.Reason, "codex task") {
		t.Fatalf("codex Stop: %v %q", err, cxOut)
	}
	if s, ok, _ := c.AgentSession(ctx, "rev"); !ok || s.Host != "codex" || s.ID != "cx1" || s.LastBlock == "" {
		t.Fatalf("the codex session was not recorded: %+v", s)
	}
	c.Ack(ctx, "rev", 3, "")

	// A config file with a problem elsewhere does not cost the agent its wake.
	h.writeConfig(t, "obligatons:\n  human:\n    slo: 1h\n")
	c.Post(ctx, api.PostRequest{Lane: "rev", Class: "human", ID: "m3", Body: "PR 11"})
	out, errText, _ := h.hookEvent(t, "rev", stop(false), "--idle", "1s")
	if a := decodeAnswer(t, out); a.Decision != "block" || !strings.Contains(a.Reason, "PR 11") {
		t.Fatalf("Stop with a config typo: %q / %q", out, errText)
	}
	c.Ack(ctx, "rev", 4, "")

	// Unknown lane, bad stdin, daemon down: exit 0, no output, a reason on stderr.
	out, errText, _ = h.hookEvent(t, "nolane", stop(false))
	if out != "" || !strings.Contains(errText, "not held") {
		t.Fatalf("unknown lane: %q / %q", out, errText)
	}
	d.kill()
	out, errText, took = h.hookEvent(t, "rev", stop(false), "--idle", "30s")
	if out != "" || !strings.Contains(errText, "daemon is not running") || took > 5*time.Second {
		t.Fatalf("daemon down: %q / %q after %s", out, errText, took)
	}
	cmd := h.command("hook", "claude-code", "--lane", "rev")
	cmd.Stdin = strings.NewReader("not json")
	if b, err := cmd.CombinedOutput(); err != nil || !strings.Contains(string(b), "not the host's JSON event") {
		t.Fatalf("bad stdin: %v %s", err, b)
	}
}

func TestHookInstallMergesTheProjectSettings(t *testing.T) {
	h := newHome(t)
	proj := t.TempDir()
	path := filepath.Join(proj, ".claude", "settings.json")
	os.MkdirAll(filepath.Dir(path), 0o700)
	os.WriteFile(path, []byte(`{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"say done"}]}]}}`), 0o600)
	for i, want := range []string{"installed the hooks for lane rev", "nothing changed"} {
		out, err := h.run("hook", "install", "claude-code", "--lane", "rev", "--project", proj)
		if err != nil || !strings.Contains(out, want) {
			t.Fatalf("install %d: %v\n%s", i, err, out)
		}
	}
	b, _ := os.ReadFile(path)
	if !strings.Contains(string(b), "say done") || strings.Count(string(b), "hook claude-code --lane rev") != 5 || !strings.Contains(string(b), `"timeout": 600`) {
		t.Fatalf("settings after install:\n%s", b)
	}
	out, err := h.run("hook", "install", "codex", "--lane", "rev", "--print")
	if err != nil || !strings.Contains(out, `"Stop"`) || strings.Contains(out, "SessionEnd") {
		t.Fatalf("--print for codex: %v\n%s", err, out)
	}
}
