package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wakewheel/wakewheel/roots"
)

// engine.retry_attempts counts command runs, and after exhaustion the
// stranded backlog resumes with `wakewheel roots retry PATH` once the
// command works, through the real binary and a real command.
func TestRootsRetryResumesAStrandedBacklog(t *testing.T) {
	repo, _, _ := checkoutRepo(t, 3, 0)
	h := newHome(t)
	h.env = append(h.env, "WAKEWHEEL_ENGINE_RETRY_BASE=10ms", "WAKEWHEEL_ENGINE_RETRY_ATTEMPTS=3")
	d := h.start()
	defer d.stop(t)
	c := h.client()
	dir := t.TempDir()
	runs, fixed, out := filepath.Join(dir, "runs"), filepath.Join(dir, "fixed"), filepath.Join(dir, "ingested")
	script := filepath.Join(dir, "ingest.sh")
	body := fmt.Sprintf("#!/bin/sh\necho run >> '%s'\n[ -e '%s' ] || { echo 'indexer is down' >&2; exit 1; }\ncat >> '%s'\n", runs, fixed, out)
	if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	if text, err := h.run("watch", repo, "--arm", "--ingest", script); err != nil {
		t.Fatalf("watch: %v\n%s", err, text)
	}
	root, err := roots.CleanPath(repo)
	if err != nil {
		t.Fatal(err)
	}
	waitRoot(t, c, root, 20*time.Second, "the first detection", func(s roots.Status) bool { return s.Detections >= 1 })
	if err := os.WriteFile(filepath.Join(repo, "new.txt"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	countRuns := func() int {
		b, _ := os.ReadFile(runs)
		return strings.Count(string(b), "\n")
	}
	waitFor := func(what string, cond func() bool) {
		t.Helper()
		deadline := time.Now().Add(30 * time.Second)
		for !cond() {
			if time.Now().After(deadline) {
				t.Fatalf("timed out waiting for %s", what)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	waitFor("retries_exhausted", func() bool {
		text, _ := h.run("alerts")
		return strings.Contains(text, "retries_exhausted")
	})
	time.Sleep(300 * time.Millisecond) // nothing more may run
	if n := countRuns(); n != 3 {
		t.Fatalf("%d ingest runs for engine.retry_attempts=3", n)
	}
	st := rootStatus(t, c, root)
	if st.Backlog != 1 {
		t.Fatalf("backlog %d after exhaustion, want the path kept", st.Backlog)
	}
	for _, n := range st.Next {
		if n.Kind == roots.KindDrain {
			t.Fatalf("a drain is still due at %v", n.At)
		}
	}

	if err := os.WriteFile(fixed, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	text, err := h.run("roots", "retry", repo)
	if err != nil || !strings.Contains(text, root) {
		t.Fatalf("roots retry: %v\n%s", err, text)
	}
	waitRoot(t, c, root, 20*time.Second, "the resumed drain", func(s roots.Status) bool { return drained(s) && s.Ingested >= 1 })
	if got := readIngested(t, out); got["new.txt"] != 1 {
		t.Fatalf("ingested %v, want new.txt once", got)
	}

	if text, err := h.run("roots", "retry", filepath.Join(dir, "nowhere")); err == nil || !strings.Contains(text, "no such root") {
		t.Fatalf("retry of an unknown root: %v\n%s", err, text)
	}
}
