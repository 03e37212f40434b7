package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/wakewheel/wakewheel/api"
	"github.com/wakewheel/wakewheel/roots"
)

// The 20-kill backlog test: a work tree with 500 untracked and 100
// modified files, its daemon SIGKILLed 20 times at random points and
// restarted: every changed file reaches ingest, and the files captured
// before a restart are not handed again after it — deliveries per changed
// file stay at most 1.2 (a batch cut by a kill is handed again; that is
// at-least-once). Batches are pinned to 4 paths (detect.drain_budget and
// detect.drain_max_batch), so that a kill re-hands at most 4 files and 20
// kills at most 80 (1.13) however they land: a kill between a batch's
// delivery and its removal from the backlog is a window a loaded box
// widens (3 of 5 kills mid-drain landed in it), and at the time-based
// size the second batch after a restart is the whole rest (~570 files,
// 1.27 seen). Only a restart that hands captured files again can pass
// 1.2 — and it hands all 600.
func TestTwentyKillsDeliverEachDirtyFileAboutOnce(t *testing.T) {
	if testing.Short() {
		t.Skip("crash test is not short")
	}
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 2))
	repo, _, _ := checkoutRepo(t, 100, 0)
	var want []string
	for i := range 500 {
		rel := fmt.Sprintf("new/u%03d.txt", i)
		if err := os.MkdirAll(filepath.Join(repo, "new"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(repo, rel), []byte("untracked"), 0o644); err != nil {
			t.Fatal(err)
		}
		want = append(want, rel)
	}
	tracked := splitZ(gitT(t, repo, "ls-files", "-z"))
	for _, rel := range tracked {
		if err := os.WriteFile(filepath.Join(repo, rel), []byte("modified"), 0o644); err != nil {
			t.Fatal(err)
		}
		want = append(want, rel)
	}
	h := newHome(t)
	h.env = append(h.env, "WAKEWHEEL_DETECT_DRAIN_BUDGET=4", "WAKEWHEEL_DETECT_DRAIN_MAX_BATCH=4")
	ingest, out := slowIngest(t)
	ctx := context.Background()
	d := h.start()
	c := h.client()
	st, err := c.Watch(ctx, api.WatchRequest{Path: repo, Ingest: &ingest, Arm: true})
	if err != nil {
		t.Fatal(err)
	}
	root := st.Path
	kills := 20
	d, c, midDrain := h.killWhileDraining(d, root, kills, rng)
	waitRoot(t, c, root, 60*time.Second, "the final drain", func(s roots.Status) bool {
		return s.Detections >= 1 && drained(s) && s.Mode == roots.ModeNotify
	})
	time.Sleep(time.Second) // a late detection would hand files again now
	d.stop(t)
	got := readIngested(t, out)
	missing, extra := compare(want, got)
	deliveries := 0
	for _, n := range got {
		deliveries += n
	}
	ratio := float64(deliveries) / float64(len(want))
	t.Logf("%d SIGKILLs (%d while the backlog was non-empty); %d changed files, %d deliveries: %.3f per file; missing %d, extra %d",
		kills, midDrain, len(want), deliveries, ratio, len(missing), len(extra))
	if len(missing) != 0 {
		t.Fatalf("lost %d files, e.g. %q", len(missing), head(missing))
	}
	if len(extra) != 0 {
		t.Fatalf("%d files that did not change, e.g. %q", len(extra), head(extra))
	}
	if ratio > 1.2 {
		t.Fatalf("%.2f deliveries per changed file over %d kills, want at most 1.2", ratio, kills)
	}
}
