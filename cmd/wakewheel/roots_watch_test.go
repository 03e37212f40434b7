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

// The README's own example run from another directory: --ingest
// ./scripts/index is taken from the caller's directory at watch time (as
// the root's path is) and runs; a program that does not exist or is not
// executable is refused at watch, saying so.
func TestWatchResolvesCommandsAgainstTheCallersDirectory(t *testing.T) {
	repo, _, _ := checkoutRepo(t, 3, 0)
	root, err := roots.CleanPath(repo)
	if err != nil {
		t.Fatal(err)
	}
	work := t.TempDir()
	out := filepath.Join(t.TempDir(), "ingested")
	if err := os.MkdirAll(filepath.Join(work, "scripts"), 0o755); err != nil {
		t.Fatal(err)
	}
	script := fmt.Sprintf("#!/bin/sh\ncat >> '%s'\n", out)
	if err := os.WriteFile(filepath.Join(work, "scripts", "index"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(work, "scripts", "notes"), []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	h := newHome(t)
	d := h.start()
	defer d.stop(t)
	run := func(args ...string) (string, error) {
		cmd := h.command(args...)
		cmd.Dir = work
		b, err := cmd.CombinedOutput()
		return string(b), err
	}
	for _, c := range []struct{ cmd, says string }{
		{"./scripts/missing", "does not exist"},
		{"./scripts/notes", "is not executable"},
		{"no-such-indexer-wakewheel", "not a command found in PATH"},
	} {
		text, err := run("watch", repo, "--ingest", c.cmd)
		if err == nil || !strings.Contains(text, c.says) || !strings.Contains(text, "--ingest") {
			t.Errorf("watch --ingest %s: %v\n%s\nwant a refusal saying %q", c.cmd, err, text, c.says)
		}
	}
	if sts, err := h.client().Roots(t.Context(), root); err != nil || len(sts) != 0 {
		t.Fatalf("a refused watch registered the root: %+v %v", sts, err)
	}

	text, err := run("watch", repo, "--arm", "--ingest", "./scripts/index")
	if err != nil {
		t.Fatalf("watch: %v\n%s", err, text)
	}
	want := filepath.Join(work, "scripts", "index")
	if !strings.Contains(text, want) {
		t.Fatalf("the recorded command is not absolute (%s):\n%s", want, text)
	}
	c := h.client()
	waitRoot(t, c, root, 20*time.Second, "the first detection", func(s roots.Status) bool { return s.Detections >= 1 })
	if err := os.WriteFile(filepath.Join(repo, "new.txt"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	st := waitRoot(t, c, root, 20*time.Second, "the ingest", func(s roots.Status) bool { return s.Ingested >= 1 || s.LastError != "" })
	if st.LastError != "" {
		t.Fatalf("the ingest failed: %s", st.LastError)
	}
	if got := readIngested(t, out); got["new.txt"] != 1 {
		t.Fatalf("ingested %v", got)
	}
}
