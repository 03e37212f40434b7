package main

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	ob "github.com/wakewheel/wakewheel/obligations"
	"github.com/wakewheel/wakewheel/wakes"
)

// TestObligationsCLI drives the verbs as a shell script would, and checks
// their exit statuses: 0 done, 2 rejected input (nothing stored), 124 a
// wait that timed out.
func TestObligationsCLI(t *testing.T) {
	if testing.Short() {
		t.Skip("real daemon process")
	}
	h := newHome(t)
	hookLog := filepath.Join(h.dir, "hook.log")
	cfgDir := filepath.Join(h.dir, "config", "wakewheel")
	os.MkdirAll(cfgDir, 0o700)
	cfg := "lanes:\n  dev:\n    wake_hook: echo \"$WAKEWHEEL_WAKE_ID $WAKEWHEEL_WAKE_REASON\" >> " + hookLog + "\n"
	if err := os.WriteFile(filepath.Join(cfgDir, "config.yaml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	d := h.start()
	defer d.stop(t)
	big := strings.Repeat("x", 64<<10+1) // obligations.max_body is 64 KiB
	steps := []struct {
		args  []string
		stdin string
		code  int
		says  string
	}{
		{[]string{"post", "--lane", "dev", "--class", "human", "hi"}, "", 2, `unknown lane "dev"`},
		{[]string{"wait", "--lane", "dev", "--open", "--timeout", "200ms"}, "", 124, "no wake of lane dev within 200ms"},
		{[]string{"post", "--lane", "dev", "--class", "pager", "hi"}, "", 2, `unknown class "pager" (valid: human, peer, digest, alert)`},
		{[]string{"post", "--lane", "dev", "--class", "peer", "look"}, "", 2, "missing hard locator"},
		{[]string{"post", "--lane", "dev", "--class", "peer", "--locator", "repo=r,line=3", "look"}, "", 2, `--locator "line=3"`},
		{[]string{"post", "--lane", "dev", "--class", "human", "-"}, big, 2, "body too large"},
		{[]string{"post", "--lane", "no/pe", "--class", "human", "--create", "x"}, "", 2, "bad lane name"},
		{[]string{"ack", "--lane", "dev", "--upto", "1"}, "", 2, "ack past RECEIVED"},
		{[]string{"resume", "--lane", "dev"}, "", 2, "never parked"},
		{[]string{"ledger", "report", "--file", "/nonexistent.jsonl"}, "", 2, "no such file"},
		{[]string{"lanes"}, "", 0, "dev   0     0         0         0"},
		{[]string{"post", "--lane", "dev", "--class", "peer", "--id", "p1", "--locator", "repo=wakewheel,issue=4", "CI", "is", "red"}, "", 0, "posted dev#1 peer id=p1"},
		{[]string{"post", "--lane", "dev", "--class", "peer", "--id", "p1", "--locator", "repo=wakewheel,issue=4", "again"}, "", 0, "duplicate of dev#1 peer id=p1"},
		{[]string{"wait", "--lane", "dev", "--timeout", "5s"}, "", 0, "peer #1 id=p1 posted"},
		{[]string{"ack", "--lane", "dev", "--upto", "1", "--action", "fixed"}, "", 0, "dev consumed up to 1 of 1"},
		{[]string{"wait", "--lane", "dev", "--timeout", "100ms"}, "", 124, "no wake"},
		{[]string{"canary", "--lane", "dev", "--count", "2"}, "", 0, "canary dev#3"},
		{[]string{"canary", "--check"}, "", 0, "2 posted, 0 consumed in time, 0 late, 0 missing, 2 pending"},
		{[]string{"park", "--lane", "dev"}, "", 0, "parked dev: consumed 1, head 3"},
		{[]string{"resume", "--lane", "dev"}, "", 0, "verdict: work (ack up to 3 when done)"},
		{[]string{"ack", "--lane", "dev", "--upto", "3"}, "", 0, "consumed up to 3 of 3"},
		{[]string{"ledger", "report"}, "", 0, "overall: pass"},
	}
	for _, s := range steps {
		cmd := h.command(s.args...)
		cmd.Stdin = strings.NewReader(s.stdin)
		out, err := cmd.CombinedOutput()
		code := 0
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			code = ee.ExitCode()
		}
		if code != s.code || !strings.Contains(string(out), s.says) {
			t.Errorf("wakewheel %s: exit %d, output:\n%s\nwant exit %d saying %q", strings.Join(s.args, " "), code, out, s.code, s.says)
		}
	}
	// Nothing of the rejected posts was stored: three obligations, all ours.
	entries, err := h.client().LedgerAll(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	posts := 0
	for _, e := range entries {
		if e.Kind == "post" {
			posts++
		}
	}
	if posts != 3 {
		t.Errorf("%d posts in the ledger, want 3", posts)
	}
	waitForFile(t, hookLog, "dev@1 post")
	if r := wakes.CheckCanaries(entries, ob.DefaultSLOs(ob.DefaultPolicies()), entries[len(entries)-1].At); r.InTime != 2 {
		t.Errorf("canaries: %+v", r)
	}
}

// waitForFile waits until path contains want.
func waitForFile(t *testing.T, path, want string) {
	t.Helper()
	for i := 0; ; i++ {
		b, _ := os.ReadFile(path)
		if strings.Contains(string(b), want) {
			return
		}
		if i > 500 {
			t.Fatalf("%s never said %q:\n%s", path, want, b)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
