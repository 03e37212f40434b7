package main

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/wakewheel/wakewheel/roots"
)

// A real `git checkout` through a real daemon and a real ingest command:
// exactly one detection, and the ingested set equals
// `git diff --name-only --no-renames A B`, 0 missing, 0 extra.
func testCheckoutThroughDaemon(t *testing.T, n, added int) {
	start := time.Now()
	repo, a, b := checkoutRepo(t, n, added)
	t.Logf("generated %d files (+%d new on B) in %v", n, added, time.Since(start).Round(time.Millisecond))
	h := newHome(t)
	// One checkout is one detection because the detection waits while
	// the checkout holds .git/index.lock and writes files. This checkout
	// takes ~4 s on a quiet box and 15-26 s on a loaded one: past
	// detect.index_lock_wait (10 s), which counts only a lock under which
	// nothing changes.
	d := h.start()
	defer d.stop(t)
	c := h.client()
	out := filepath.Join(t.TempDir(), "ingested")
	ingest := ingestScript(t, out)
	st := watchArmed(t, c, repo, ingest, 30*time.Second)
	root := st.Path
	before := st.Detections

	start = time.Now()
	gitT(t, repo, "checkout", "-q", "B")
	took := time.Since(start)
	st = waitRoot(t, c, root, 5*time.Minute, "the drain", func(s roots.Status) bool { return s.Detections > before && drained(s) })
	time.Sleep(1500 * time.Millisecond) // a second detection would come within the burst window
	st = rootStatus(t, c, root)
	want := splitZ(gitT(t, repo, "diff", "--name-only", "--no-renames", "-z", a, b))
	got := readIngested(t, out)
	missing, extra := compare(want, got)
	t.Logf("checkout of %d paths took %v; detections %d -> %d; %d events, overflows %d; ingested %d distinct paths in %d batches (%v after the checkout); missing %d, extra %d",
		len(want), took.Round(time.Millisecond), before, st.Detections, st.Events, st.Overflows, len(got), st.Batches,
		time.Since(start).Round(time.Millisecond), len(missing), len(extra))
	if len(want) != n+added {
		t.Fatalf("git diff has %d paths, want %d", len(want), n+added)
	}
	if st.Detections != before+1 {
		t.Errorf("%d detections for one checkout", st.Detections-before)
	}
	if len(missing) != 0 || len(extra) != 0 {
		t.Fatalf("missing %q, extra %q", head(missing), head(extra))
	}
	// Batches sized by time (detect.drain_target): a cheap command drains
	// the checkout in a few runs, not one per 32 paths.
	if perTenK := float64(st.Batches) * 10000 / float64(len(want)); perTenK > 10 {
		t.Errorf("%d ingest runs for %d paths (%.1f per 10,000), want at most 10", st.Batches, len(want), perTenK)
	}
}

func head(s []string) []string {
	if len(s) > 5 {
		return s[:5]
	}
	return s
}

// The design's case: 10,000 files, 10,500 changed paths, 500 new files in
// new nested directories. About 13 s here, so it always runs.
func TestCheckoutIsOneDetection10k(t *testing.T) { testCheckoutThroughDaemon(t, 10000, 500) }

// A checkout that runs longer than the 5 s burst cap is still one
// detection: while .git/index.lock exists the detection waits (bounded by
// detect.index_lock_wait, 10 s). Simulated: the lock is held while 70
// tracked files are rewritten over 7 s, then released.
func TestSlowCheckoutHoldingIndexLockIsOneDetection(t *testing.T) {
	repo, _, _ := checkoutRepo(t, 100, 0)
	h := newHome(t)
	d := h.start()
	defer d.stop(t)
	c := h.client()
	out := filepath.Join(t.TempDir(), "ingested")
	ingest := ingestScript(t, out)
	st := watchArmed(t, c, repo, ingest, 30*time.Second)
	root := st.Path
	before := st.Detections
	lock := filepath.Join(repo, ".git", "index.lock")
	if err := os.WriteFile(lock, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	want := slowCheckout(t, repo, 70)
	if mid := rootStatus(t, c, root); mid.Detections != before {
		t.Fatalf("detected while index.lock was held (after %v)", time.Since(start))
	}
	if err := os.Remove(lock); err != nil {
		t.Fatal(err)
	}
	held := time.Since(start)
	st = waitRoot(t, c, root, 30*time.Second, "the drain", func(s roots.Status) bool { return s.Detections > before && drained(s) })
	time.Sleep(1500 * time.Millisecond)
	st = rootStatus(t, c, root)
	missing, extra := compare(want, readIngested(t, out))
	t.Logf("lock held %v; detections %d -> %d, index.lock waits %d; missing %d, extra %d", held.Round(time.Millisecond),
		before, st.Detections, st.LockWaits, len(missing), len(extra))
	if st.Detections != before+1 || len(missing) != 0 || len(extra) != 0 {
		t.Fatalf("%d detections; missing %q extra %q", st.Detections-before, missing, extra)
	}
}

func filepathOf(i int) string { return fmt.Sprintf("d000/e%02d/f%05d.txt", i/100, i) }

// slowCheckout rewrites the first n files of repo 100 ms apart, as a
// checkout slowed down by a big repository does, and returns their paths.
func slowCheckout(t *testing.T, repo string, n int) []string {
	t.Helper()
	var paths []string
	for i := range n {
		p := filepathOf(i)
		if err := os.WriteFile(filepath.Join(repo, p), []byte("slow checkout\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
		time.Sleep(100 * time.Millisecond)
	}
	return paths
}

// A lock under which files keep changing is live past
// detect.index_lock_wait (here 2 s): no detection while a slow checkout
// writes for 5 s; once nothing changes under it for the wait, it is
// taken as stale and the detection goes ahead with the lock still there.
func TestIndexLockIsLiveWhileFilesChangeThenStale(t *testing.T) {
	repo, _, _ := checkoutRepo(t, 100, 0)
	h := newHome(t)
	h.env = append(h.env, "WAKEWHEEL_DETECT_INDEX_LOCK_WAIT=2s")
	d := h.start()
	defer d.stop(t)
	c := h.client()
	out := filepath.Join(t.TempDir(), "ingested")
	st := watchArmed(t, c, repo, ingestScript(t, out), 30*time.Second)
	root, before := st.Path, st.Detections
	lock := filepath.Join(repo, ".git", "index.lock")
	if err := os.WriteFile(lock, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	defer os.Remove(lock)
	want := slowCheckout(t, repo, 50)
	if mid := rootStatus(t, c, root); mid.Detections != before {
		t.Fatalf("detected while files changed under index.lock (wait 2 s, 5 s of writes)")
	}
	quiet := time.Now()
	st = waitRoot(t, c, root, 60*time.Second, "the detection of a stale lock", func(s roots.Status) bool { return s.Detections > before && drained(s) })
	missing, extra := compare(want, readIngested(t, out))
	t.Logf("stale lock detected %v after the last write; detections %d -> %d; missing %d, extra %d",
		time.Since(quiet).Round(time.Millisecond), before, st.Detections, len(missing), len(extra))
	if len(missing) != 0 || len(extra) != 0 {
		t.Fatalf("missing %q extra %q", missing, extra)
	}
}
