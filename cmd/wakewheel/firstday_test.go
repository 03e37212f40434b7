package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wakewheel/wakewheel/api"
	"github.com/wakewheel/wakewheel/configs"
)

// Tests of a new user's first day: each one is a rough edge found by
// following the README as a newcomer, through the real binary (or the
// real MCP adapter).

// status names the earliest pending deadline as next due, in the CLI and in
// MCP: a reminder 3 minutes out is due in 3 minutes, not at the wheel's
// next slot boundary ("in 10s").
func TestStatusNextDueIsTheEarliestDeadline(t *testing.T) {
	h := newHome(t)
	d := h.start()
	defer d.stop(t)
	before := time.Now()
	if out, err := h.run("remind", "tea", "--in", "3m"); err != nil {
		t.Fatalf("remind: %v\n%s", err, out)
	}
	out, err := h.run("status", "--json")
	if err != nil {
		t.Fatalf("status: %v\n%s", err, out)
	}
	var st api.Status
	if err := json.Unmarshal([]byte(out), &st); err != nil {
		t.Fatalf("status --json: %v\n%s", err, out)
	}
	want := before.Add(3 * time.Minute)
	if st.NextDue == nil || st.NextDue.Before(want.Add(-time.Second)) || st.NextDue.After(time.Now().Add(3*time.Minute+time.Second)) {
		t.Fatalf("status next_due %v, want the reminder's due time, about %v", st.NextDue, want)
	}
	text, err := h.run("status")
	if err != nil || !strings.Contains(text, "(in 2m5") && !strings.Contains(text, "(in 3m0s)") {
		t.Errorf("status text does not say the next deadline is due in about 3m:\n%s", text)
	}

	cs, _ := h.mcpSession(t)
	var mst api.Status
	structured(t, "status", callTool(t, cs, "status", map[string]any{}), &mst)
	if mst.NextDue == nil || !mst.NextDue.Equal(*st.NextDue) {
		t.Errorf("MCP status next_due %v, want %v", mst.NextDue, st.NextDue)
	}
}

// A typo in the config file locks out no client and no agent: the running
// daemon rejects the edit, and status, deadlines, config show --daemon and
// the MCP adapter still reach it, each naming the problem; with the daemon
// down, the adapter starts and its tool errors name the problem too.
func TestAConfigTypoLocksOutNoClient(t *testing.T) {
	h := newHome(t)
	h.writeConfig(t, "log:\n  level: info\n")
	d := h.start()
	h.writeConfig(t, "detect:\n  burst_silence: 5ms\n")
	eventually(t, "the daemon to reject the edit", func() bool { return h.daemonConfig(t).Reload.LastError != "" })

	for _, args := range [][]string{{"status"}, {"deadlines"}, {"config", "show", "--daemon"}, {"lanes"}} {
		out, err := h.run(args...)
		if err != nil || !strings.Contains(out, "detect.burst_silence") || !strings.Contains(out, "warning") && args[0] != "config" {
			t.Errorf("%v with a typo in the file: %v\n%s", args, err, out)
		}
	}
	cs, _ := h.mcpSession(t)
	if res := callTool(t, cs, "status", map[string]any{}); res.IsError {
		t.Errorf("MCP status through the running daemon: %s", resultText(res))
	}
	d.stop(t)
	res := callTool(t, cs, "deadlines", map[string]any{})
	if !res.IsError || !strings.Contains(resultText(res), "detect.burst_silence") {
		t.Errorf("MCP deadlines with the daemon down and a typo: the error should name the config problem: %s", resultText(res))
	}
}

// Go's internals never reach a user: outcome counts in words, flag values
// explained, setting names instead of field names, package prefixes gone,
// durations rounded in text and strings in JSON, a path that is not a root
// said so, usage shown on an argument error; unwatch has --json.
func TestNoGoInternalsReachAUser(t *testing.T) {
	h := newHome(t)
	d := h.start()
	defer d.stop(t)
	repo := t.TempDir()
	gitT(t, repo, "init", "-q")
	for _, step := range []struct {
		args  []string
		code  int
		says  []string
		never []string
	}{
		{[]string{"remind", "r", "--in", "1ms"}, 0, nil, nil},
		{[]string{"status"}, 0, []string{"runs ("}, []string{"map["}},
		{[]string{"ack", "--lane", "x", "--upto", "-1"}, 2, []string{"--upto", "whole number", "usage: wakewheel ack"}, []string{"strconv", "ParseUint"}},
		{[]string{"remind"}, 2, []string{"usage: wakewheel remind NAME"}, nil},
		{[]string{"post", "--lane", "big", "--class", "human", "--create", strings.Repeat("x", 70000)}, 2, []string{"obligations.max_body"}, []string{"MaxBody", "obligations: "}},
		{[]string{"watch", "/no/such/dir"}, 2, []string{"/no/such/dir"}, []string{"roots: "}},
		{[]string{"roots", t.TempDir()}, 2, []string{"is not a root"}, []string{"no roots"}},
		{[]string{"lease", "acquire", "job", "--ttl", "10m", "--json"}, 0, []string{`"ttl": "10m0s"`}, []string{"ttl_ns"}},
		{[]string{"lease", "list"}, 0, []string{"job"}, []string{"s.", ".4", ".5", ".6", ".7", ".8", ".9"}}, // "9m59s", never "9m59.427605038s"
		{[]string{"watch", repo, "--json"}, 0, []string{`"reconcile_quiet": "45s"`, `"burst_silence": "500ms"`}, []string{"000000000"}},
		{[]string{"unwatch", repo, "--json"}, 0, []string{`"removed": true`}, nil},
	} {
		out, err := h.run(step.args...)
		if got := exitCode(err); got != step.code {
			t.Errorf("%v: exit %d, want %d\n%s", head(step.args), got, step.code, out)
		}
		for _, s := range step.says {
			if !strings.Contains(out, s) {
				t.Errorf("%v does not say %q:\n%s", head(step.args), s, out)
			}
		}
		for _, s := range step.never {
			text := out
			if step.args[0] == "lease" { // only the last column: how long until it expires
				fields := strings.Fields(out)
				text = fields[len(fields)-1]
			}
			if strings.Contains(text, s) {
				t.Errorf("%v says %q:\n%s", head(step.args), s, out)
			}
		}
	}
}

// Lane names in the config file keep their case: lanes.Reviewer's wake
// hook runs for lane Reviewer (viper folds keys; the names of the lanes
// table are read again as written).
func TestLaneNamesInTheFileKeepTheirCase(t *testing.T) {
	h := newHome(t)
	marker := filepath.Join(t.TempDir(), "woken")
	h.writeConfig(t, "lanes:\n  Reviewer:\n    wake_hook: echo \"$WAKEWHEEL_LANE\" >> "+marker+"\n")
	d := h.start()
	defer d.stop(t)
	if out, err := h.run("post", "--lane", "Reviewer", "--class", "human", "--create", "please look"); err != nil {
		t.Fatalf("post: %v\n%s", err, out)
	}
	eventually(t, "the wake hook of lane Reviewer to run", func() bool {
		b, _ := os.ReadFile(marker)
		return strings.TrimSpace(string(b)) == "Reviewer"
	})
	dup := filepath.Join(t.TempDir(), "dup.yaml")
	os.WriteFile(dup, []byte("lanes:\n  Rev:\n    wake_hook: \"true\"\n  rev:\n    wake_hook: \"true\"\n"), 0o600)
	if out, err := h.run("config", "show", "--config", dup); err == nil || !strings.Contains(out, "differ only in case") {
		t.Errorf("two lanes differing only in case: %v\n%s", err, out)
	}
}

// Smaller edges: doctor names a config file that holds only tables;
// config show --daemon forgets a rejected edit once the file is put back;
// roots shows each root's effective windows.
func TestSmallFirstDayEdges(t *testing.T) {
	h := newHome(t)
	good := "lanes:\n  dev:\n    wake_hook: \"true\"\n"
	h.writeConfig(t, good)
	fs, _ := h.doctorJSON(t)
	wantFinding(t, fs, "config", levelOK, "valid: "+filepath.Join(h.dir, "config", "wakewheel", "config.yaml"))

	d := h.start()
	defer d.stop(t)
	h.writeConfig(t, good+"detect:\n  burst_silence: 5ms\n")
	eventually(t, "the daemon to reject the edit", func() bool { return h.daemonConfig(t).Reload.LastError != "" })
	h.writeConfig(t, good)
	eventually(t, "the rejection to be forgotten once the file is fixed", func() bool { return h.daemonConfig(t).Reload.LastError == "" })
	if out, _ := h.run("config", "show", "--daemon"); strings.Contains(out, "rejected") || strings.Contains(out, "config: config:") {
		t.Errorf("config show --daemon after the fix:\n%s", out)
	}

	repo := t.TempDir()
	gitT(t, repo, "init", "-q")
	out, err := h.run("watch", repo)
	if err != nil || !strings.Contains(out, "burst 500ms of silence (cap 5s), reconcile after 45s quiet (cap 10m0s), 32 paths per drain") {
		t.Errorf("watch does not show the root's effective windows: %v\n%s", err, out)
	}
}

// A verb's help shows its own flags (post --help fits on a screen); the
// settings are listed by `wakewheel help settings`, meaning first, and are
// still flags of the daemon (and, hidden, of every verb).
func TestVerbHelpShowsItsOwnFlags(t *testing.T) {
	h := newHome(t)
	out, err := h.run("post", "--help")
	if lines := strings.Count(out, "\n"); err != nil || lines > 30 || strings.Contains(out, "--engine.") || strings.Contains(out, "--detect.") {
		t.Errorf("post --help: %d lines (want at most 30, no settings): %v\n%s", lines, err, out)
	}
	out, err = h.run("help", "settings")
	for _, s := range configs.Registry() {
		if !strings.Contains(out, "--"+s.Key+" ") || !strings.Contains(out, s.Means()) {
			t.Errorf("help settings lacks %s or what it means: %v", s.Key, err)
		}
	}
	if i, j := strings.Index(out, "how long a detection waits"), strings.Index(out, "a checkout or rebase holds"); i < 0 || j < i {
		t.Errorf("help settings: the meaning comes first, the reason after:\n%s", out)
	}
	if out, _ := h.run("daemon", "--help"); !strings.Contains(out, "--detect.burst_silence") {
		t.Errorf("daemon --help does not show the settings:\n%s", out)
	}
	if out, err := h.run("status", "--detect.burst_silence=5ms"); err == nil || !strings.Contains(out, "detect.burst_silence") {
		t.Errorf("a setting given to a verb is still read: %v\n%s", err, out)
	}
}

// Stopping with an agent waiting is prompt: the waiter is woken at once
// with "stopping" (exit 75) and the daemon exits well within the 10 s it
// used to wait for the long poll. A second daemon, and `make run`'s
// script, next to a running one say so at once and touch nothing.
func TestStopWithAWaiterIsPromptAndASecondDaemonTouchesNothing(t *testing.T) {
	h := newHome(t)
	d := h.start()
	if out, err := h.run("daemon"); err == nil || !strings.Contains(out, "already running") {
		t.Errorf("a second daemon on the same socket: %v\n%s", err, out)
	}
	run := exec.Command("../../scripts/run.sh", os.Args[0])
	run.Env = h.env
	if out, err := run.CombinedOutput(); err == nil || !strings.Contains(string(out), "already running") {
		t.Errorf("make run next to a running daemon: %v\n%s", err, out)
	}
	if ds, err := h.client().Deadlines(t.Context(), "reminder/"); err != nil || len(ds) != 0 {
		t.Errorf("make run touched the running daemon: %v %v", ds, err)
	}

	waiter := h.command("wait", "--lane", "dev", "--open", "--timeout", "60s")
	var out strings.Builder
	waiter.Stdout, waiter.Stderr = &out, &out
	if err := waiter.Start(); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the waiter to open its lane", func() bool {
		ls, err := h.client().Lanes(t.Context())
		return err == nil && len(ls) == 1
	})
	time.Sleep(200 * time.Millisecond) // in its long poll
	start := time.Now()
	d.stop(t)
	took := time.Since(start)
	err := waiter.Wait()
	t.Logf("the daemon stopped %v after SIGTERM with a waiter", took.Round(time.Millisecond))
	if took > 5*time.Second {
		t.Errorf("stopping with a waiter took %v (want about a second; the long poll used to hold it 10s)", took)
	}
	if exitCode(err) != api.ExitStopping || !strings.Contains(out.String(), "stopping") {
		t.Errorf("the waiter: exit %d, want %d saying the daemon is stopping:\n%s", exitCode(err), api.ExitStopping, out.String())
	}
}

// make install puts the binary, the systemd user unit (pointing at that
// binary), the completions and cobra's man pages under PREFIX; make
// uninstall takes exactly those away. make fuzz says what each step does.
func TestMakeInstallUninstallAndFuzzProgress(t *testing.T) {
	if testing.Short() {
		t.Skip("runs make")
	}
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("make is not installed (apt-get install -y make)")
	}
	dir := t.TempDir()
	vars := []string{"PREFIX=" + filepath.Join(dir, "p"), "SYSTEMDDIR=" + filepath.Join(dir, "systemd")}
	mk := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("make", append(append([]string{"-s", "-C", "../.."}, args...), vars...)...)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("make %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	mk("install")
	bin := filepath.Join(dir, "p", "bin", "wakewheel")
	if out, err := exec.Command(bin, "--version").CombinedOutput(); err != nil {
		t.Fatalf("the installed binary: %v\n%s", err, out)
	}
	if out, err := exec.Command(filepath.Join(dir, "p", "bin", "wakewheel-broker"), "--help").CombinedOutput(); err != nil {
		t.Fatalf("the installed broker program: %v\n%s", err, out)
	}
	for _, f := range []string{"p/share/man/man1/wakewheel.1", "p/share/man/man1/wakewheel-post.1",
		"p/share/bash-completion/completions/wakewheel", "p/share/zsh/site-functions/_wakewheel",
		"p/share/fish/vendor_completions.d/wakewheel.fish", "systemd/wakewheel.service"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("make install did not install %s: %v", f, err)
		}
	}
	if unit, _ := os.ReadFile(filepath.Join(dir, "systemd", "wakewheel.service")); !strings.Contains(string(unit), "ExecStart="+bin+" daemon") {
		t.Errorf("the installed unit does not run the installed binary:\n%s", unit)
	}
	mk("uninstall")
	filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			t.Errorf("make uninstall left %s", path)
		}
		return nil
	})

	cmd := exec.Command("make", "-s", "-C", "../..", "fuzz", "FUZZ_TARGETS=obligations:FuzzDecode", "FUZZ_TIME=10x")
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "[1/1] obligations FuzzDecode: building the instrumented test binary") ||
		!strings.Contains(string(out), "done in") {
		t.Errorf("make fuzz does not say what it is doing: %v\n%s", err, out)
	}
}

// Through the real adapter: post takes no required id (as on the CLI), and
// every answer comes with structured content matching its output schema.
func TestMCPPostWithoutAnIDAndTypedAnswers(t *testing.T) {
	h := newHome(t)
	d := h.start()
	defer d.stop(t)
	cs, _ := h.mcpSession(t)
	var posted api.PostResult
	structured(t, "post", callTool(t, cs, "post", map[string]any{"lane": "dev", "class": "human", "body": "hi", "create": true}), &posted)
	if posted.Obligation.ID == "" || posted.Obligation.Seq != 1 {
		t.Errorf("post without an id: %+v", posted)
	}
	var lease map[string]any
	structured(t, "lease_acquire", callTool(t, cs, "lease_acquire", map[string]any{"name": "job", "ttl": "10m"}), &lease)
	if lease["ttl"] != "10m0s" {
		t.Errorf("lease_acquire answers ttl %v, want the string 10m0s", lease["ttl"])
	}
	var released map[string]any
	structured(t, "lease_release", callTool(t, cs, "lease_release", map[string]any{"name": "job"}), &released)
	if released["released"] != true {
		t.Errorf("lease_release: %v", released)
	}
}

// ledger report speaks plainly: it counts what is not consumed yet, says a
// timing check with nothing to measure is not judged (not "n=0 … pass"),
// and does not mistake the roots' reconcile commands for its own check.
func TestLedgerReportInPlainWords(t *testing.T) {
	h := newHome(t)
	d := h.start()
	defer d.stop(t)
	for i := 0; i < 4; i++ {
		if out, err := h.run("post", "--lane", "dev", "--class", "human", "--create", fmt.Sprintf("message %d", i)); err != nil {
			t.Fatalf("post: %v\n%s", err, out)
		}
	}
	out, err := h.run("ledger", "report")
	if err != nil {
		t.Fatalf("ledger report: %v\n%s", err, out)
	}
	for _, want := range []string{"not consumed yet: 4 posted obligations", "time from post to consumed, human (95th percentile)",
		"not judged (none yet)", "not the roots' reconcile commands", "overall: pass"} {
		if !strings.Contains(out, want) {
			t.Errorf("ledger report does not say %q:\n%s", want, out)
		}
	}
	for _, jargon := range []string{"safety vector", "cut-over", "<= ", "p95_event"} {
		if strings.Contains(out, jargon) {
			t.Errorf("ledger report says %q:\n%s", jargon, out)
		}
	}
}

// The README walk-through (make test-readme) fails on a non-zero exit the
// README does not announce, and accepts one it does ("exits N").
func TestREADMEWalkthroughJudgesExits(t *testing.T) {
	if _, err := os.Stat("../../bin/wakewheel"); err != nil {
		t.Skip("bin/wakewheel is not built (make build; make test builds it first)")
	}
	walk := func(readme string) (string, error) {
		path := filepath.Join(t.TempDir(), "README.md")
		os.WriteFile(path, []byte(readme), 0o600)
		out, err := exec.Command("../../scripts/readme-walkthrough.sh", path).CombinedOutput()
		return string(out), err
	}
	if out, err := walk("# x\n\n```sh\ntrue\nfalse      # exits 1: announced\nsh -c 'exit 124'   # exits 124\n```\n"); err != nil {
		t.Errorf("announced exits fail the walk-through: %v\n%s", err, out)
	}
	if out, err := walk("# x\n\n```sh\ntrue\nfalse\n```\n\n```json\n{\"not\": \"run\"}\n```\n"); err == nil || !strings.Contains(out, "exit 1 (announced: 0): false") {
		t.Errorf("an unannounced exit passes the walk-through: %v\n%s", err, out)
	}
}
