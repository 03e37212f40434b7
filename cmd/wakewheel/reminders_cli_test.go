package main

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/wakewheel/wakewheel"
	ob "github.com/wakewheel/wakewheel/obligations"
)

// A reminder that names a lane posts an alert there when it fires: the
// lane's waiter wakes with it, a second fire of the same reminder
// coalesces with the first, and `fires` (CLI and MCP) lists the fires.
func TestReminderPostsAnAlertToItsLane(t *testing.T) {
	h := newHome(t)
	d := h.start()
	defer d.stop(t)
	if out, err := h.run("lanes", "--open", "dev"); err != nil {
		t.Fatalf("lanes --open: %v\n%s", err, out)
	}
	if out, err := h.run("remind", "wake-me", "--in", "200ms", "--lane", "dev", "--note", "check the CI run"); err != nil {
		t.Fatalf("remind --lane: %v\n%s", err, out)
	}
	out, err := h.command("wait", "--lane", "dev", "--timeout", "20s", "--json").Output()
	if err != nil {
		t.Fatalf("wait: %v\n%s", err, out)
	}
	var dg ob.Digest
	if err := json.Unmarshal(out, &dg); err != nil {
		t.Fatalf("wait --json: %v\n%s", err, out)
	}
	if len(dg.Alerts) != 1 || dg.Alerts[0].Key != "reminder/wake-me" || dg.Alerts[0].Latest.Body != "check the CI run" {
		t.Fatalf("the reminder's alert is not in the digest: %+v", dg.Alerts)
	}
	if out, err := h.run("remind", "wake-me", "--in", "100ms", "--lane", "dev"); err != nil {
		t.Fatalf("remind again: %v\n%s", err, out)
	}
	eventually(t, "the second fire to coalesce", func() bool {
		out, err := h.command("digest", "--lane", "dev", "--json").Output()
		var dg ob.Digest
		return err == nil && json.Unmarshal(out, &dg) == nil && len(dg.Alerts) == 1 && dg.Alerts[0].Count == 2
	})

	out, err = h.command("fires", "--key", "reminder/", "--json").Output()
	if err != nil {
		t.Fatalf("fires: %v\n%s", err, out)
	}
	var fires []wakewheel.Fire
	if err := json.Unmarshal(out, &fires); err != nil {
		t.Fatalf("fires --json: %v\n%s", err, out)
	}
	if len(fires) != 2 || fires[0].Key != "reminder/wake-me" || fires[0].Outcome != "done" || fires[1].Seq <= fires[0].Seq {
		t.Fatalf("fires: %+v, want the two fires of reminder/wake-me, done, oldest first", fires)
	}
	text, err := h.run("fires")
	if err != nil || !strings.Contains(text, "reminder/wake-me") || !strings.Contains(text, "done") {
		t.Fatalf("fires: %v\n%s", err, text)
	}

	cs, _ := h.mcpSession(t)
	var got struct {
		Fires []wakewheel.Fire `json:"fires"`
	}
	structured(t, "fires", callTool(t, cs, "fires", map[string]any{"limit": 5}), &got)
	if len(got.Fires) == 0 || got.Fires[len(got.Fires)-1].Key != "reminder/wake-me" {
		t.Fatalf("MCP fires: %+v", got.Fires)
	}
	res := callTool(t, cs, "remind", map[string]any{"action": "push", "name": "mcp-wake", "in": "100ms", "lane": "dev", "note": "from the agent"})
	if res.IsError {
		t.Fatalf("MCP remind with lane: %s", resultText(res))
	}
	eventually(t, "the MCP reminder's alert", func() bool {
		out, err := h.command("digest", "--lane", "dev", "--json").Output()
		var dg ob.Digest
		return err == nil && json.Unmarshal(out, &dg) == nil && len(dg.Alerts) == 2
	})
}

// --in and --at only pull a pending reminder earlier, and say so; --reset
// postpones it. Times in the past and unsafe names are refused (exit 2).
func TestRemindPostponesOnlyWithReset(t *testing.T) {
	h := newHome(t)
	d := h.start()
	defer d.stop(t)
	if out, err := h.run("remind", "r", "--in", "1h"); err != nil {
		t.Fatalf("remind: %v\n%s", err, out)
	}
	out, err := h.run("remind", "r", "--in", "2h")
	if err != nil || !strings.Contains(out, "stays due") || !strings.Contains(out, "--reset postpones it") {
		t.Fatalf("a later --in without --reset: %v\n%s", err, out)
	}
	if at := time.Until(h.pendingAt(t, "reminder/r")); at > 61*time.Minute {
		t.Fatalf("--in without --reset postponed the reminder to %s from now", at.Round(time.Second))
	}
	if out, err := h.run("remind", "r", "--in", "2h", "--reset"); err != nil || strings.Contains(out, "stays due") {
		t.Fatalf("--reset: %v\n%s", err, out)
	}
	if at := time.Until(h.pendingAt(t, "reminder/r")); at < 119*time.Minute || at > 121*time.Minute {
		t.Fatalf("--reset --in 2h: due in %s", at.Round(time.Second))
	}
	past := time.Now().Add(-time.Hour).UTC().Format(time.RFC3339)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"remind", "r", "--at", past}, "in the past"},
		{[]string{"remind", "r", "--at", past, "--reset"}, "in the past"},
		{[]string{"remind", "a/b", "--in", "1h"}, "holds '/'"},
		{[]string{"remind", "x..y", "--in", "1h"}, `holds ".."`},
		{[]string{"remind", "tab\tname", "--in", "1h"}, "control character"},
		{[]string{"remind", "r", "--window", "1m", "--reset"}, "reset goes with in or at"},
		{[]string{"remind", "r", "--in", "1h", "--note", "orphan"}, "give the lane too"},
	} {
		out, err := h.run(tc.args...)
		if code := exitCode(err); code != 2 || !strings.Contains(out, tc.want) {
			t.Errorf("%q: exit %d, want 2 and %q:\n%s", tc.args, code, tc.want, out)
		}
	}
	if at := time.Until(h.pendingAt(t, "reminder/r")); at < 119*time.Minute {
		t.Fatalf("a refused request moved the reminder to %s from now", at.Round(time.Second))
	}
}
