package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wakewheel/wakewheel/api"
	ob "github.com/wakewheel/wakewheel/obligations"
)

// fakeREPL is an agent in a terminal pane: it reads lines; a wakewheel
// prompt makes it read the digest and ack up to the head the prompt names
// (a <lane>.swallow-once file makes it ignore one prompt, as a busy agent
// would lose typed input).
const fakeREPL = `#!/bin/sh
dir="$AGENT_TEST_DIR"
while IFS= read -r line; do
  echo "$line" >> "$dir/pane-input"
  lane=$(printf '%s\n' "$line" | sed -n 's/^wakewheel: lane \([^ ]*\) has unconsumed work.*/\1/p')
  upto=$(printf '%s\n' "$line" | sed -n 's/.*--upto \([0-9]*\).*/\1/p')
  [ -n "$lane" ] || continue
  if [ -f "$dir/$lane.swallow-once" ]; then rm -f "$dir/$lane.swallow-once"; echo "swallowed $lane $upto" >> "$dir/pane-events"; continue; fi
  out=$("$AGENT_TEST_BIN" digest --lane "$lane")
  printf '%s\n' "$out" >> "$dir/pane-digests"
  ids=$(printf '%s\n' "$out" | sed -n "s/^human #\([0-9]*\) id=\([^ ]*\).*/$lane \1 \2/p" | awk -v u="$upto" '$2 <= u+0')
  [ -n "$ids" ] && printf '%s\n' "$ids" >> "$dir/acted"
  if "$AGENT_TEST_BIN" ack --lane "$lane" --upto "$upto" >/dev/null; then echo "acked $lane $upto" >> "$dir/pane-events"
  else [ -n "$ids" ] && printf '%s\n' "$ids" >> "$dir/ackfailed"; fi
done
`

// needTmux returns the tmux binary, installing the Debian package as root
// when it is missing, or skips the test saying why.
func needTmux(t *testing.T) string {
	t.Helper()
	if p, err := exec.LookPath("tmux"); err == nil {
		return p
	}
	if os.Geteuid() == 0 {
		if _, err := exec.LookPath("apt-get"); err == nil {
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
			defer cancel()
			out, err := exec.CommandContext(ctx, "apt-get", "install", "-y", "tmux").CombinedOutput()
			if p, lerr := exec.LookPath("tmux"); err == nil && lerr == nil {
				return p
			}
			t.Skipf("tmux is not installed and apt-get install -y tmux failed: %v\n%s", err, out)
		}
	}
	t.Skip("tmux is not installed (apt-get install tmux as root to run this test)")
	return ""
}

// TestPaneDelivery runs a real tmux server with a fake agent REPL in a
// pane: a post reaches it as a typed prompt; a prompt it swallows is typed
// again at the class cadence (10 s) and then consumed; a missing pane is
// shown in lanes and alerted, never retried hot.
func TestPaneDelivery(t *testing.T) {
	t.Parallel() // mostly waits on cadences and idle windows: it may overlap the others
	tmux := needTmux(t)
	h := newHome(t)
	dir := filepath.Join(h.dir, "agent")
	os.MkdirAll(dir, 0o700)
	tmuxDir, err := os.MkdirTemp("", "wwtmux")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(tmuxDir) })
	h.env = append(h.env, "AGENT_TEST_DIR="+dir, "AGENT_TEST_BIN="+os.Args[0], "TMUX_TMPDIR="+tmuxDir)
	h.env = append(h.env[:0:0], withoutTMUX(h.env)...)
	repl := filepath.Join(dir, "repl.sh")
	os.WriteFile(repl, []byte(fakeREPL), 0o700)
	start := exec.Command(tmux, "new-session", "-d", "-s", "ww", "-x", "400", "-y", "40", "sh "+repl)
	start.Env = h.env
	if out, err := start.CombinedOutput(); err != nil {
		t.Skipf("tmux cannot start a server here: %v\n%s", err, out)
	}
	t.Cleanup(func() {
		k := exec.Command(tmux, "kill-server")
		k.Env = h.env
		k.Run()
	})
	h.writeConfig(t, "obligations:\n  human:\n    cadence: 10s\nlanes:\n  tp:\n    tmux: ww:0.0\n  tq:\n    tmux: nosuch:9.9\n")
	d := h.start()
	defer d.stop(t)
	c := h.client()
	ctx := context.Background()
	for _, l := range []string{"tp", "tq"} {
		if _, err := c.OpenLane(ctx, l); err != nil {
			t.Fatal(err)
		}
	}
	events := func() []string { return readLines(filepath.Join(dir, "pane-events")) }

	// A post reaches the pane and is consumed.
	posted := time.Now()
	if _, err := c.Post(ctx, api.PostRequest{Lane: "tp", Class: "human", ID: "m1", Body: "look at PR 9"}); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the first prompt acked", func() bool { return len(events()) == 1 && events()[0] == "acked tp 1" })
	first := time.Since(posted)
	if b, _ := os.ReadFile(filepath.Join(dir, "pane-digests")); !strings.Contains(string(b), "look at PR 9") {
		t.Fatalf("the agent's digest lacks the message:\n%s", b)
	}

	// A swallowed prompt comes again at the cadence, then is consumed.
	os.WriteFile(filepath.Join(dir, "tp.swallow-once"), nil, 0o600)
	posted = time.Now()
	if _, err := c.Post(ctx, api.PostRequest{Lane: "tp", Class: "human", ID: "m2", Body: "and PR 10"}); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for len(events()) < 3 && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	again := time.Since(posted)
	if ev := events(); len(ev) != 3 || ev[1] != "swallowed tp 2" || ev[2] != "acked tp 2" {
		t.Fatalf("pane events %q", ev)
	}
	if again < 9*time.Second || again > 16*time.Second {
		t.Fatalf("the swallowed prompt was consumed %s after the post; want about the 10s cadence", again)
	}
	t.Logf("post→ack through the pane: %s; swallowed prompt re-delivered and consumed %s after its post (cadence 10s)",
		first.Round(time.Millisecond), again.Round(time.Millisecond))

	// Pane turns in the ledger: one per prompt, all with work.
	entries, _ := c.LedgerAll(ctx)
	var turns []ob.Entry
	for _, e := range entries {
		if e.Kind == ob.EntryTurn && e.Mode == ob.TurnPane {
			turns = append(turns, e)
		}
	}
	if len(turns) != 3 || turns[1].WakeID != "tp@2" || turns[2].WakeID != "tp@2" || !turns[2].Work {
		t.Fatalf("pane turns %+v", turns)
	}

	// A missing pane: shown in lanes, alerted once, no prompt, no hot retry.
	if _, err := c.Post(ctx, api.PostRequest{Lane: "tq", Class: "human", ID: "q1", Body: "nobody there"}); err != nil {
		t.Fatal(err)
	}
	var lanesOut string
	eventually(t, "the missing pane reported", func() bool {
		lanesOut, _ = h.run("lanes")
		return strings.Contains(lanesOut, "nosuch:9.9: MISSING")
	})
	time.Sleep(time.Second)
	alerts, err := c.Alerts(ctx, 100)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, a := range alerts {
		if a.Code == "agent_pane_missing" {
			n++
		}
	}
	st, _ := c.Agents(ctx)
	for _, l := range st {
		if l.Lane == "tq" && (l.Pane == nil || l.Pane.Prompts != 0) {
			t.Fatalf("tq pane %+v", l.Pane)
		}
	}
	if n != 1 {
		t.Fatalf("%d agent_pane_missing alerts, want 1", n)
	}
}

func withoutTMUX(env []string) []string {
	var out []string
	for _, e := range env {
		if !strings.HasPrefix(e, "TMUX=") {
			out = append(out, e)
		}
	}
	return out
}
