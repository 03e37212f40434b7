package main

import (
	"encoding/json"
	"strings"
	"testing"

	ob "github.com/wakewheel/wakewheel/obligations"
)

func (h *home) lanes(t *testing.T) []ob.LaneStatus {
	t.Helper()
	out, err := h.command("lanes", "--json").Output()
	if err != nil {
		t.Fatalf("lanes --json: %v\n%s", err, out)
	}
	var ls []ob.LaneStatus
	if err := json.Unmarshal(out, &ls); err != nil {
		t.Fatalf("lanes --json: %v\n%s", err, out)
	}
	return ls
}

// A wait on a lane nobody opened is a rejected request (exit 2) that says
// how to open it, and creates no lane; --open opens it and waits.
func TestWaitOnAnUnknownLaneIsAnError(t *testing.T) {
	h := newHome(t)
	d := h.start()
	defer d.stop(t)
	out, err := h.run("wait", "--lane", "nosuch", "--timeout", "2s")
	if code := exitCode(err); code != 2 {
		t.Fatalf("wait on an unknown lane: exit %d, want 2\n%s", code, out)
	}
	for _, want := range []string{`unknown lane "nosuch"`, "wakewheel wait --lane nosuch --open"} {
		if !strings.Contains(out, want) {
			t.Errorf("the error does not say %q:\n%s", want, out)
		}
	}
	if ls := h.lanes(t); len(ls) != 0 {
		t.Fatalf("a wait on a typo created %+v", ls)
	}
	out, err = h.run("wait", "--lane", "nosuch", "--open", "--timeout", "300ms")
	if code := exitCode(err); code != exitWaitTimeout {
		t.Fatalf("wait --open: exit %d, want %d (timed out on the opened lane)\n%s", code, exitWaitTimeout, out)
	}
	if ls := h.lanes(t); len(ls) != 1 || ls[0].Lane != "nosuch" {
		t.Fatalf("after wait --open: %+v", ls)
	}
}

// lanes --close deletes a lane for good (it stays gone after a restart);
// it is refused while work is unconsumed, unless --force.
func TestLanesClose(t *testing.T) {
	h := newHome(t)
	d := h.start()
	if out, err := h.run("lanes", "--open", "dev"); err != nil {
		t.Fatalf("lanes --open: %v\n%s", err, out)
	}
	if out, err := h.run("post", "--lane", "dev", "--class", "human", "please look"); err != nil {
		t.Fatalf("post: %v\n%s", err, out)
	}
	out, err := h.run("lanes", "--close", "dev")
	if code := exitCode(err); code != 2 {
		t.Fatalf("close with work unconsumed: exit %d, want 2\n%s", code, out)
	}
	for _, want := range []string{"still holds 1 unconsumed", "wakewheel lanes --close dev --force"} {
		if !strings.Contains(out, want) {
			t.Errorf("the refusal does not say %q:\n%s", want, out)
		}
	}
	out, err = h.run("lanes", "--close", "dev", "--force")
	if err != nil || !strings.Contains(out, "closed dev (head 1); discarded 1 unconsumed") {
		t.Fatalf("lanes --close --force: %v\n%s", err, out)
	}
	out, err = h.run("lanes", "--close", "dev")
	if code := exitCode(err); code != 2 || !strings.Contains(out, `unknown lane "dev"`) {
		t.Fatalf("closing a closed lane: exit %d\n%s", code, out)
	}
	d.stop(t)
	d = h.start()
	defer d.stop(t)
	if ls := h.lanes(t); len(ls) != 0 {
		t.Fatalf("a closed lane came back after a restart: %+v", ls)
	}
	out, err = h.run("deadlines", "--json")
	if err != nil || strings.Contains(out, "redeliver/dev/") {
		t.Fatalf("re-wakes of the closed lane are pending: %v\n%s", err, out)
	}
}

// obligations.max_lanes caps the lanes: post --create (and lanes --open)
// beyond it is refused and says why; closing a lane makes room.
func TestLaneCapRefusesCreate(t *testing.T) {
	h := newHome(t)
	h.env = append(h.env, "WAKEWHEEL_OBLIGATIONS_MAX_LANES=2")
	d := h.start()
	defer d.stop(t)
	for _, l := range []string{"a", "b"} {
		if out, err := h.run("lanes", "--open", l); err != nil {
			t.Fatalf("lanes --open %s: %v\n%s", l, err, out)
		}
	}
	out, err := h.run("post", "--lane", "c", "--class", "human", "--create", "hello")
	if code := exitCode(err); code != 2 {
		t.Fatalf("post --create beyond the cap: exit %d, want 2\n%s", code, out)
	}
	for _, want := range []string{"too many lanes", "at most 2", "obligations.max_lanes", "wakewheel lanes --close LANE"} {
		if !strings.Contains(out, want) {
			t.Errorf("the refusal does not say %q:\n%s", want, out)
		}
	}
	if out, err := h.run("lanes", "--open", "c"); exitCode(err) != 2 {
		t.Fatalf("lanes --open beyond the cap: %v\n%s", err, out)
	}
	if out, err := h.run("lanes", "--close", "a"); err != nil {
		t.Fatalf("lanes --close: %v\n%s", err, out)
	}
	if out, err := h.run("post", "--lane", "c", "--class", "human", "--create", "hello"); err != nil {
		t.Fatalf("post --create after a close: %v\n%s", err, out)
	}
}

// MCP callers get hints in their own terms: argument names, never CLI
// flags.
func TestMCPLaneHintsNameArguments(t *testing.T) {
	h := newHome(t)
	d := h.start()
	defer d.stop(t)
	cs, _ := h.mcpSession(t)
	res := callTool(t, cs, "wait", map[string]any{"lane": "nosuch", "timeout": "1s"})
	text := resultText(res)
	if !res.IsError || !strings.Contains(text, `unknown lane "nosuch"`) || !strings.Contains(text, "open: true") || strings.Contains(text, "--") {
		t.Fatalf("wait on an unknown lane: IsError=%v %q", res.IsError, text)
	}
	res = callTool(t, cs, "post", map[string]any{"lane": "nosuch", "class": "human", "id": "m1", "body": "hi"})
	text = resultText(res)
	if !res.IsError || !strings.Contains(text, "create: true") || strings.Contains(text, "--") || strings.Contains(text, "wakewheel ") {
		t.Fatalf("post to an unknown lane: IsError=%v %q", res.IsError, text)
	}
	res = callTool(t, cs, "wait", map[string]any{"lane": "nosuch", "open": true, "timeout": "200ms"})
	if res.IsError {
		t.Fatalf("wait with open: true: %s", resultText(res))
	}
	if ls := h.lanes(t); len(ls) != 1 || ls[0].Lane != "nosuch" {
		t.Fatalf("after wait with open: true: %+v", ls)
	}
}
