package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wakewheel/wakewheel/roots"
)

// startLoggingTo starts a daemon whose output goes to the file logPath
// (as `wakewheel daemon >> repo/daemon.log 2>&1` would).
func (h *home) startLoggingTo(logPath string) *child {
	h.t.Helper()
	logf, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		h.t.Fatal(err)
	}
	cmd := h.command("daemon")
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		h.t.Fatal(err)
	}
	d := &child{cmd: cmd, log: logf}
	c := h.client()
	deadline := time.Now().Add(10 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		_, err := c.Status(ctx)
		cancel()
		if err == nil {
			return d
		}
		if time.Now().After(deadline) {
			d.kill()
			h.t.Fatalf("daemon did not answer: %v", err)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// A daemon whose log file lives in a watched root does not feed itself
// (its log lines are no detections), routine drains log no warning, and
// a real change is still delivered.
func TestDaemonLogInAWatchedRootDoesNotFeedItself(t *testing.T) {
	repo, _, _ := checkoutRepo(t, 3, 0)
	root, err := roots.CleanPath(repo)
	if err != nil {
		t.Fatal(err)
	}
	h := newHome(t)
	h.env = append(h.env, "WAKEWHEEL_LOG_LEVEL=debug") // every firing writes a line
	logPath := filepath.Join(root, "daemon.log")
	d := h.startLoggingTo(logPath)
	defer d.stop(t)
	c := h.client()
	out := filepath.Join(t.TempDir(), "ingested")
	if text, err := h.run("watch", repo, "--arm", "--ingest", ingestScript(t, out)); err != nil {
		t.Fatalf("watch: %v\n%s", err, text)
	}
	waitRoot(t, c, root, 20*time.Second, "the first detection", func(s roots.Status) bool { return s.Detections >= 1 && drained(s) })
	if err := os.WriteFile(filepath.Join(repo, "new.txt"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	st := waitRoot(t, c, root, 20*time.Second, "the drain", func(s roots.Status) bool { return s.Ingested >= 1 && drained(s) })
	before := st.Detections
	time.Sleep(3 * time.Second) // the feedback loop ran at about 2 detections a second
	st = rootStatus(t, c, root)
	if st.Detections > before {
		t.Errorf("%d detections in 3 s with nothing changed but the daemon's log", st.Detections-before)
	}
	if got := readIngested(t, out); got["daemon.log"] != 0 || got["new.txt"] != 1 {
		t.Errorf("ingested %v: want new.txt once and never daemon.log", got)
	}
	log, _ := os.ReadFile(logPath)
	for _, line := range strings.Split(string(log), "\n") {
		if strings.Contains(line, `"outcome":"yield"`) && strings.Contains(line, `"level":"warn"`) {
			t.Errorf("a routine drain logged at warn: %s", line)
			break
		}
	}
	if !strings.Contains(string(log), `"outcome":"yield"`) {
		t.Error("no drain firing in the log (the test saw nothing)")
	}
}

// watch / warns; a root inside a root, or holding one, is refused saying
// which root is in the way.
func TestWatchWarnsOnTheWholeMachineAndRefusesNestedRoots(t *testing.T) {
	h := newHome(t)
	d := h.start()
	defer d.stop(t)
	repo := t.TempDir()
	sub := filepath.Join(repo, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	text, err := h.run("watch", "/")
	if err != nil || !strings.Contains(text, "warning: watching / takes in every file") {
		t.Fatalf("watch /: %v\n%s", err, text)
	}
	if text, err := h.run("unwatch", "/"); err != nil {
		t.Fatalf("unwatch /: %v\n%s", err, text)
	}
	if text, err := h.run("watch", repo); err != nil {
		t.Fatalf("watch: %v\n%s", err, text)
	}
	text, err = h.run("watch", sub)
	if err == nil || !strings.Contains(text, "is inside the root "+repo) {
		t.Fatalf("watch of a directory inside a root: %v\n%s", err, text)
	}
	text, err = h.run("watch", filepath.Dir(repo))
	if err == nil || !strings.Contains(text, "holds the root "+repo) {
		t.Fatalf("watch of a directory holding a root: %v\n%s", err, text)
	}
}
