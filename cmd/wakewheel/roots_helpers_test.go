package main

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/wakewheel/wakewheel/api"
	"github.com/wakewheel/wakewheel/internal/testgit"
	"github.com/wakewheel/wakewheel/roots"
)

// gitT runs git in dir for a test (see internal/testgit).
func gitT(tb testing.TB, dir string, args ...string) []byte {
	tb.Helper()
	return testgit.Run(tb, dir, args...)
}

// checkoutRepo builds, with one git fast-import, branch main (A) holding n
// files, 100 per directory, and branch B changing every one of them and
// adding added files in new nested directories; main is checked out. It
// returns the repository's path and the two commits.
func checkoutRepo(t *testing.T, n, added int) (dir, a, b string) {
	t.Helper()
	dir = t.TempDir()
	gitT(t, dir, "init", "-q")
	paths := make([]string, n)
	for i := range paths {
		paths[i] = fmt.Sprintf("d%03d/e%02d/f%05d.txt", i/1000, (i/100)%10, i)
	}
	newPaths := make([]string, added)
	for i := range newPaths {
		newPaths[i] = fmt.Sprintf("new/n%02d/deep/er/f%04d.txt", i/25, i)
	}
	var in bytes.Buffer
	commit := func(ref, from, version string, ps []string, i int) {
		fmt.Fprintf(&in, "commit refs/heads/%s\ncommitter t <t@t> %d +0000\ndata %d\n%s\n", ref, 1700000000+i, len(ref), ref)
		if from != "" {
			fmt.Fprintf(&in, "from refs/heads/%s\n", from)
		}
		for _, p := range ps {
			data := version + " " + p + "\n"
			fmt.Fprintf(&in, "M 100644 inline %s\ndata %d\n%s\n", p, len(data), data)
		}
	}
	commit("main", "", "v1", paths, 0)
	commit("B", "main", "v2", append(slices.Clone(paths), newPaths...), 1)
	cmd := exec.Command("git", "-C", dir, "fast-import", "--quiet")
	cmd.Stdin = &in
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("fast-import: %v: %s", err, out)
	}
	gitT(t, dir, "reset", "-q", "--hard", "main")
	a = strings.TrimSpace(string(gitT(t, dir, "rev-parse", "main")))
	b = strings.TrimSpace(string(gitT(t, dir, "rev-parse", "B")))
	return dir, a, b
}

// ingestScript writes the small shell script the daemon runs as ingest: it
// appends its stdin (NUL-separated paths) to out. It returns the command line.
func ingestScript(t *testing.T, out string) string {
	t.Helper()
	return writeIngest(t, out, "")
}

// writeIngest writes an ingest script that runs first (shell lines, may
// be empty) and then appends its batch to out; it returns the command.
func writeIngest(t *testing.T, out, first string) string {
	t.Helper()
	script := filepath.Join(t.TempDir(), "ingest.sh")
	if err := os.WriteFile(script, []byte("#!/bin/sh\n"+first+"cat >> \"$1\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("sh '%s' '%s'", script, out)
}

// watchArmed registers repo as an armed root with ingest and waits (up to
// within) for its first detection to be drained in notify mode.
func watchArmed(t *testing.T, c *api.Client, repo, ingest string, within time.Duration) roots.Status {
	t.Helper()
	st, err := c.Watch(context.Background(), api.WatchRequest{Path: repo, Ingest: &ingest, Arm: true})
	if err != nil {
		t.Fatal(err)
	}
	return waitRoot(t, c, st.Path, within, "the first detection", func(s roots.Status) bool {
		return s.Mode == roots.ModeNotify && s.Detections >= 1 && drained(s)
	})
}

// readIngested returns how many times each path reached the ingest script.
func readIngested(t *testing.T, out string) map[string]int {
	t.Helper()
	b, err := os.ReadFile(out)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	got := map[string]int{}
	for _, p := range bytes.Split(b, []byte{0}) {
		if len(p) > 0 {
			got[string(p)]++
		}
	}
	return got
}

// rootStatus returns the daemon's status of root.
func rootStatus(t *testing.T, c *api.Client, root string) roots.Status {
	t.Helper()
	sts, err := c.Roots(context.Background(), root)
	if err != nil {
		t.Fatal(err)
	}
	if len(sts) != 1 {
		t.Fatalf("%d roots for %s", len(sts), root)
	}
	return sts[0]
}

// waitRoot polls root's status until cond holds.
func waitRoot(t *testing.T, c *api.Client, root string, d time.Duration, what string, cond func(roots.Status) bool) roots.Status {
	t.Helper()
	deadline := time.Now().Add(d)
	for {
		st := rootStatus(t, c, root)
		if cond(st) {
			return st
		}
		if time.Now().After(deadline) {
			t.Fatalf("after %v, still waiting for %s: %+v", d, what, st)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// drained: the backlog is empty and nothing runs.
func drained(st roots.Status) bool { return st.Backlog == 0 && st.Running == "" }

// compare returns the paths of want missing from got, and those of got not in want.
func compare(want []string, got map[string]int) (missing, extra []string) {
	w := map[string]bool{}
	for _, p := range want {
		w[p] = true
		if got[p] == 0 {
			missing = append(missing, p)
		}
	}
	for p := range got {
		if !w[p] {
			extra = append(extra, p)
		}
	}
	return missing, extra
}

func splitZ(b []byte) []string {
	var out []string
	for _, p := range bytes.Split(b, []byte{0}) {
		if len(p) > 0 {
			out = append(out, string(p))
		}
	}
	return out
}

func longTests() bool { return os.Getenv("WAKEWHEEL_LONG") == "1" }

// slowIngest is an ingest command a little slower than cat alone, so that
// kills land mid-drain: it appends each batch it is handed to out.
func slowIngest(t *testing.T) (ingest, out string) {
	t.Helper()
	out = filepath.Join(t.TempDir(), "ingested")
	return writeIngest(t, out, "sleep 0.01\n"), out
}

// killWhileDraining SIGKILLs the daemon d n times at random points (50 to
// 450 ms apart), restarting it each time, and counts the kills that landed
// while root's backlog was not empty. It returns the last daemon and its
// client.
func (h *home) killWhileDraining(d *child, root string, n int, rng *rand.Rand) (_ *child, _ *api.Client, midDrain int) {
	c := h.client()
	for range n {
		time.Sleep(time.Duration(50+rng.IntN(400)) * time.Millisecond)
		if st, err := c.Roots(context.Background(), root); err == nil && len(st) == 1 && st[0].Backlog > 0 {
			midDrain++
		}
		d.kill()
		d = h.start()
		c = h.client()
	}
	return d, c, midDrain
}
