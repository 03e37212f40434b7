package main

import (
	"flag"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/wakewheel/wakewheel/roots"
)

var rootsCrashIterations = flag.Int("roots-crash-iterations", 30, "SIGKILLs in TestCrashWhileDrainingLosesNoPath")

// SIGKILL of the daemon at random points while it drains a 10,000-path
// backlog (a checkout changing 10,000 files), restarted each time: after
// the last restart every changed path has reached the ingest command at
// least once. The backlog and the since ref are captured in one synced
// write; a batch leaves the backlog only after its command exited 0.
func TestCrashWhileDrainingLosesNoPath(t *testing.T) {
	if testing.Short() {
		t.Skip("crash test is not short")
	}
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 1))
	repo, a, b := checkoutRepo(t, 10000, 0)
	want := splitZ(gitT(t, repo, "diff", "--name-only", "--no-renames", "-z", a, b))
	h := newHome(t)
	// Batches of 32 at most, as a slow command would get: the drain lasts
	// long enough for the kills to land in it.
	h.env = append(h.env, "WAKEWHEEL_DETECT_DRAIN_MAX_BATCH=32")
	// A little slower than cat alone, so that the kills land mid-drain.
	ingest, out := slowIngest(t)

	d := h.start()
	c := h.client()
	st := watchArmed(t, c, repo, ingest, 30*time.Second)
	root := st.Path
	gitT(t, repo, "checkout", "-q", "B")
	start := time.Now()
	// The kills are meant for the drain: wait until the changed set is
	// captured, so that no kill lands before the detection (on a loaded
	// box a restart's detection can outlast the gaps between kills, and
	// the kills would then never meet a backlog).
	waitRoot(t, c, root, 60*time.Second, "the changed set captured", func(s roots.Status) bool {
		return s.Backlog > 0
	})
	kills := *rootsCrashIterations
	d, c, midDrain := h.killWhileDraining(d, root, kills, rng)
	st = waitRoot(t, c, root, 60*time.Second, "the final drain", func(s roots.Status) bool {
		return s.Detections >= 1 && drained(s) && s.Mode == roots.ModeNotify
	})
	d.stop(t)
	got := readIngested(t, out)
	missing, extra := compare(want, got)
	twice := 0
	for _, n := range got {
		if n > 1 {
			twice++
		}
	}
	t.Logf("%d SIGKILLs over %v (%d while the backlog was non-empty); %d paths changed, %d ingested, %d more than once, missing %d, extra %d",
		kills, time.Since(start).Round(time.Millisecond), midDrain, len(want), len(got), twice, len(missing), len(extra))
	if len(missing) != 0 {
		t.Fatalf("lost %d paths, e.g. %q", len(missing), head(missing))
	}
	if len(extra) != 0 {
		t.Fatalf("%d paths that did not change, e.g. %q", len(extra), head(extra))
	}
	if midDrain < *rootsCrashIterations/2 {
		t.Errorf("only %d of %d kills landed mid-drain", midDrain, kills)
	}
}
