package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/wakewheel/wakewheel/configs"
	"github.com/wakewheel/wakewheel/deadlines"
	"github.com/wakewheel/wakewheel/scheduler"
	"github.com/wakewheel/wakewheel/store"
)

// writeConfig replaces the home's config file.
func (h *home) writeConfig(t *testing.T, yaml string) {
	t.Helper()
	path := filepath.Join(h.dir, "config", "wakewheel", "config.yaml")
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	// Write a sibling and rename it over the file, as editors do, so the
	// watcher never reads a half-written file.
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
}

// seed writes deadlines into the home's store before a daemon opens it, as
// the detectors will create them (burst/<root> is an Extend: Since is set).
func (h *home) seed(t *testing.T, ds ...deadlines.Deadline) {
	t.Helper()
	db, err := store.Open(filepath.Join(h.dir, "store"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range ds {
		db.PutDeadline(d)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
}

func (h *home) pendingAt(t *testing.T, key string) time.Time {
	t.Helper()
	ds, err := h.client().Deadlines(context.Background(), key)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range ds {
		if d.Key == key {
			return d.At
		}
	}
	t.Fatalf("%s is not pending", key)
	return time.Time{}
}

func (h *home) daemonConfig(t *testing.T) ConfigView {
	t.Helper()
	out, err := h.command("config", "show", "--daemon", "--json").Output() // stdout only: a warning may go to stderr
	if err != nil {
		t.Fatalf("config show --daemon: %v\n%s", err, out)
	}
	var view ConfigView
	if err := json.Unmarshal(out, &view); err != nil {
		t.Fatalf("config show --daemon --json: %v\n%s", err, out)
	}
	return view
}

func entry(view ConfigView, key string) ConfigEntry {
	for _, en := range view.Entries {
		if en.Key == key {
			return en
		}
	}
	return ConfigEntry{}
}

// eventually polls cond every 20 ms for up to 5 s.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if cond() {
			return
		}
	}
	t.Fatalf("timed out waiting for %s", what)
}

// TestReloadRetimesPendingWindowsAndRejectsInvalidChanges runs a daemon
// with a config file, shortens detect.burst_silence in the file, and sees
// every pending burst/ deadline (and nothing else) re-timed by the
// documented rule, At' = min(At, now + new silence); then writes an
// invalid value and sees it rejected, logged, and the previous config in
// force.
func TestReloadRetimesPendingWindowsAndRejectsInvalidChanges(t *testing.T) {
	h := newHome(t)
	h.env = append(h.env, "WAKEWHEEL_DETECT_RECONCILE_QUIET=40s")
	h.writeConfig(t, "detect:\n  burst_silence: 50s\n  burst_cap: 10m\n  reconcile_quiet: 20s\n")
	now := time.Now()
	far := now.Add(8 * time.Minute)
	// The rule goes by kind, then key ("burst" + the root's path, as
	// roots.Key makes them). Re-timed, they fall due 20 s from the change at
	// the earliest: the roots manager does not act on these roots nobody
	// registered while the test watches their deadlines.
	h.seed(t,
		deadlines.Deadline{Key: "burst/src/a", Kind: "burst", At: far, Since: now},
		deadlines.Deadline{Key: "burst/src/b", Kind: "burst", At: far.Add(time.Second), Since: now},
		deadlines.Deadline{Key: "reconcile/src/a", Kind: "reconcile", At: far, Since: now},
	)
	d := h.start()
	defer d.stop(t)
	if out, err := h.run("remind", "mine", "--window", "5m"); err != nil {
		t.Fatalf("remind: %v\n%s", err, out)
	}
	mine := h.pendingAt(t, "reminder/mine")

	view := h.daemonConfig(t)
	if view.Reload.Off != "" || !strings.HasSuffix(view.Reload.File, "config.yaml") {
		t.Fatalf("live reload is not on: %+v", view.Reload)
	}

	// A valid change: the silence shrinks from 50s to 20s.
	before := time.Now()
	h.writeConfig(t, "detect:\n  burst_silence: 20s\n  burst_cap: 10m\n  reconcile_quiet: 25s\n")
	eventually(t, "the burst deadlines to be re-timed", func() bool {
		return h.pendingAt(t, "burst/src/b").Before(far)
	})
	after := time.Now()
	for _, key := range []string{"burst/src/a", "burst/src/b"} {
		at := h.pendingAt(t, key)
		if at.Before(before.Add(20*time.Second)) || at.After(after.Add(20*time.Second+time.Millisecond)) {
			t.Errorf("%s re-timed to now%+v; want now + 20s (the new silence)", key, at.Sub(after).Round(time.Millisecond))
		}
	}
	if at := h.pendingAt(t, "reconcile/src/a"); !at.Equal(far) {
		t.Errorf("reconcile/src/a moved to %s: reconcile_quiet is set by the environment, which stays above the file", at)
	}
	if at := h.pendingAt(t, "reminder/mine"); !at.Equal(mine) {
		t.Errorf("reminder/mine moved: reminders are never re-timed")
	}
	view = h.daemonConfig(t)
	if en := entry(view, "detect.burst_silence"); en.Value != "20s" || !strings.HasPrefix(en.Source, "file ") {
		t.Errorf("in force: %+v", en)
	}
	if en := entry(view, "detect.reconcile_quiet"); en.Value != "40s" || en.Source != "env WAKEWHEEL_DETECT_RECONCILE_QUIET" {
		t.Errorf("env lost its place above the file: %+v", en)
	}
	retimedA := h.pendingAt(t, "burst/src/a")

	// An invalid change: rejected, logged, the previous config stays.
	h.writeConfig(t, "detect:\n  burst_silence: 2s\n  burst_cap: 10m\n  drain_budget: lots\n")
	eventually(t, "the invalid change to be rejected", func() bool {
		return h.daemonConfig(t).Reload.LastError != ""
	})
	view = h.daemonConfig(t)
	if !strings.Contains(view.Reload.LastError, "detect.drain_budget") {
		t.Errorf("last error %q does not name the key", view.Reload.LastError)
	}
	if en := entry(view, "detect.burst_silence"); en.Value != "20s" {
		t.Errorf("after an invalid change burst_silence is %+v; the previous 20s must stay in force", en)
	}
	if at := h.pendingAt(t, "burst/src/a"); !at.Equal(retimedA) {
		t.Errorf("an invalid change moved burst/src/a")
	}
	log, _ := os.ReadFile(d.log.Name())
	if !strings.Contains(string(log), "config change rejected; the previous config stays in force") ||
		!strings.Contains(string(log), `detect.drain_budget = \"lots\"`) {
		t.Errorf("the rejection is not logged with the key and value:\n%s", log)
	}
	out, err := h.run("config", "show", "--daemon")
	if err != nil || !strings.Contains(out, "last change rejected") {
		t.Errorf("config show --daemon: %v\n%s", err, out)
	}
}

// TestRetimeOnlyShortenedSettings applies retime to an engine directly.
func TestRetimeOnlyShortenedSettings(t *testing.T) {
	eng, now := testEngine(t)
	for _, m := range []deadlines.Mutation{
		{Op: deadlines.OpExtend, Key: "burst/r", Kind: "burst", Window: time.Minute, Cap: time.Hour},
		{Op: deadlines.OpPush, Key: "redeliver/dev/human", Kind: "redeliver", At: now.Add(time.Hour)},
		{Op: deadlines.OpPush, Key: "redeliver/dev/peer", Kind: "redeliver", At: now.Add(time.Hour)},
	} {
		if _, err := eng.Apply(now, m); err != nil {
			t.Fatal(err)
		}
	}
	old := defaultsForTest(t)
	old.Detect.BurstSilence = time.Minute
	old.Obligations.Human.Cadence = time.Hour
	cur := old
	cur.Detect.BurstSilence = 10 * time.Second
	cur.Obligations.Human.Cadence = 15 * time.Minute
	cur.Obligations.Peer.Cadence = old.Obligations.Peer.Cadence * 2
	moved, err := retime(eng, now, &old, &cur, daemonTimetables())
	if err != nil {
		t.Fatal(err)
	}
	if moved["roots"] != 1 || moved["obligations"] != 1 || len(moved) != 2 {
		t.Fatalf("moved %v", moved)
	}
	for key, want := range map[string]time.Time{
		"burst/r":             now.Add(10 * time.Second),
		"redeliver/dev/human": now.Add(15 * time.Minute),
		"redeliver/dev/peer":  now.Add(time.Hour),
	} {
		if d, _ := eng.Get(key); !d.At.Equal(want) {
			t.Errorf("%s at %s, want %s", key, d.At, want)
		}
	}
}

// TestRetimeKnowsEachRootsOwnWindows: a root with its own burst_silence is
// timed by it, not by detect.burst_silence. Shortening the global silence
// leaves such a root's pending burst alone, and shortening a root's own
// silence re-times that root's burst (and no other).
func TestRetimeKnowsEachRootsOwnWindows(t *testing.T) {
	eng, now := testEngine(t)
	for _, m := range []deadlines.Mutation{
		{Op: deadlines.OpExtend, Key: "burst/src/own", Kind: "burst", Window: time.Minute, Cap: time.Hour},
		{Op: deadlines.OpExtend, Key: "burst/src/short", Kind: "burst", Window: time.Minute, Cap: time.Hour},
		{Op: deadlines.OpExtend, Key: "burst/src/plain", Kind: "burst", Window: 50 * time.Second, Cap: time.Hour},
	} {
		if _, err := eng.Apply(now, m); err != nil {
			t.Fatal(err)
		}
	}
	old := defaultsForTest(t)
	old.Detect.BurstSilence, old.Detect.BurstCap = 50*time.Second, time.Hour
	old.Roots = []configs.Root{
		{Path: "/src/own", BurstSilence: time.Minute},
		{Path: "/src/short", BurstSilence: time.Minute},
	}
	cur := old
	cur.Detect.BurstSilence = 20 * time.Second // every root without its own silence
	cur.Roots = []configs.Root{
		{Path: "/src/own", BurstSilence: time.Minute},        // its own, unchanged
		{Path: "/src/short", BurstSilence: 10 * time.Second}, // its own, shortened
	}
	if _, err := retime(eng, now, &old, &cur, daemonTimetables()); err != nil {
		t.Fatal(err)
	}
	for key, want := range map[string]time.Time{
		"burst/src/own":   now.Add(time.Minute),      // stays: its window did not change
		"burst/src/short": now.Add(10 * time.Second), // its own shorter silence
		"burst/src/plain": now.Add(20 * time.Second), // the global shorter silence
	} {
		if d, _ := eng.Get(key); !d.At.Equal(want) {
			t.Errorf("%s at now%+v, want now%+v", key, d.At.Sub(now), want.Sub(now))
		}
	}
}

// Every kind a capability re-times is indexed by the daemon's engine: a
// reload visits those deadlines, never every pending one.
func TestTimedKindsAreIndexed(t *testing.T) {
	for _, tt := range daemonTimetables() {
		if len(tt.kinds) == 0 {
			t.Errorf("%s declares a timetable but not the kinds it times", tt.owner)
		}
		for _, k := range tt.kinds {
			if !slices.Contains(indexedKinds(), k) {
				t.Errorf("%s re-times kind %s, which the engine does not index", tt.owner, k)
			}
		}
	}
}

// daemonTimetables are the timetables the daemon's capabilities declare.
func daemonTimetables() []timetable {
	return timetablesOf(capabilities(&daemon{}))
}

func testEngine(t *testing.T) (*scheduler.Engine, time.Time) {
	t.Helper()
	db, err := store.Open(t.TempDir(), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	eng, err := scheduler.NewEngine(db, scheduler.Options{Indexed: indexedKinds()}, now)
	if err != nil {
		t.Fatal(err)
	}
	for _, kind := range []string{"burst", "redeliver"} {
		eng.Register(kind, func(context.Context, scheduler.Firing) scheduler.Outcome { return scheduler.Succeeded() })
	}
	return eng, now
}

func defaultsForTest(t *testing.T) configs.Config {
	t.Helper()
	dir := t.TempDir()
	cfg, _, err := configs.Load(configs.LoadOptions{Env: func(k string) (string, bool) {
		switch k {
		case "HOME":
			return dir, true
		case "XDG_CONFIG_HOME":
			return filepath.Join(dir, "none"), true
		}
		return "", false
	}})
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// TestReloadNeverPutsTheFileAboveAFlag: a daemon started with a config
// flag reloads with its flags, so an edited file changes the other keys and
// never the flag's.
func TestReloadNeverPutsTheFileAboveAFlag(t *testing.T) {
	h := newHome(t)
	h.writeConfig(t, "detect:\n  burst_silence: 50s\n  burst_cap: 10m\n")
	cmd := h.command("daemon", "--detect.burst_silence=1s")
	logf, err := os.CreateTemp(h.dir, "daemon-*.log")
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	d := &child{cmd: cmd, log: logf}
	defer d.stop(t)
	eventually(t, "the daemon to answer", func() bool {
		_, err := h.client().Status(context.Background())
		return err == nil
	})
	if view := h.daemonConfig(t); view.Reload.Off != "" {
		t.Fatalf("reload is off: %s", view.Reload.Off)
	}
	h.writeConfig(t, "detect:\n  burst_silence: 40s\n  burst_cap: 9m\n")
	eventually(t, "the edit to be applied", func() bool { return h.daemonConfig(t).Reload.Reloads > 0 })
	values := map[string]string{}
	for _, en := range h.daemonConfig(t).Entries {
		values[en.Key] = en.Value + " from " + en.Source
	}
	if got := values["detect.burst_silence"]; !strings.HasPrefix(got, "1s from flag") {
		t.Errorf("burst_silence after the reload: %s, want 1s from the flag", got)
	}
	if got := values["detect.burst_cap"]; !strings.HasPrefix(got, "9m") {
		t.Errorf("burst_cap after the reload: %s, want 9m from the file", got)
	}
}
