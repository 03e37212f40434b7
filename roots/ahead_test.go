package roots

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"
)

// A checkout of 1,200 files (a burst of thousands of events) is one
// detection, computed ahead during the burst's silence, and every path of
// `git diff --name-only --no-renames A B` is ingested: 0 missing, 0 extra.
// The silence is 2 s so that a loaded machine still starts the
// computation within it (it starts once the tree is quiet for aheadQuiet).
func TestABigCheckoutIsComputedAheadDuringTheSilence(t *testing.T) {
	root, want := checkoutRepo(t, 1200)
	var mu sync.Mutex
	var dets []Detection
	l := startLive(t, Options{BurstSilence: 2 * time.Second, BurstCap: 20 * time.Second,
		OnDetected: func(d Detection) { mu.Lock(); dets = append(dets, d); mu.Unlock() }})
	log := &ingestLog{}
	if err := l.m.SetHandlers(root, Handlers{Ingest: log.ingest}); err != nil {
		t.Fatal(err)
	}
	if _, err := l.m.Watch(context.Background(), Spec{Path: root, Arm: true}); err != nil {
		t.Fatal(err)
	}
	before := l.waitDrained(t, root, 1, 60*time.Second) // the first detection: nothing changed yet
	deadline := time.Now().Add(10 * time.Second)
	for l.status(t, root).Mode != ModeNotify {
		if time.Now().After(deadline) {
			t.Fatalf("not watching: %+v", l.status(t, root))
		}
		time.Sleep(10 * time.Millisecond)
	}

	git(t, root, "checkout", "-q", "B")
	st := l.waitDrained(t, root, before.Detections+1, 2*time.Minute)
	missing, extra := diffSets(want, log.set())
	mu.Lock()
	defer mu.Unlock()
	t.Logf("%d paths changed; %d detections after the first, the last computed ahead: %v; missing %d, extra %d",
		len(want), st.Detections-before.Detections, dets[len(dets)-1].Ahead, len(missing), len(extra))
	if len(missing) != 0 || len(extra) != 0 {
		t.Fatalf("missing %q, extra %q", first(missing), first(extra))
	}
	if st.Detections != before.Detections+1 {
		t.Fatalf("%d detections for one checkout, want 1", st.Detections-before.Detections)
	}
	if d := dets[len(dets)-1]; !d.Ahead || len(d.Paths) != len(want) {
		t.Fatalf("the checkout's detection: %d paths, computed ahead %v; want %d, ahead", len(d.Paths), d.Ahead, len(want))
	}
}

// checkoutRepo is a repository at branch main with n files in 12
// directories, and a branch B that rewrites each and adds one in a new
// directory (built by fast-import: thousands of writes cost a loaded
// machine seconds). It returns `git diff --name-only --no-renames main B`.
func checkoutRepo(t *testing.T, n int) (root string, changed []string) {
	root = newRepo(t)
	git(t, root, "branch", "-M", "main")
	var in bytes.Buffer
	commit := func(ref, version string, paths []string) {
		fmt.Fprintf(&in, "commit refs/heads/%s\ncommitter t <t@t> 1700000000 +0000\ndata 1\n%s\nfrom refs/heads/main^0\n", ref, ref[:1])
		for _, p := range paths {
			data := version + " " + p + "\n"
			fmt.Fprintf(&in, "M 100644 inline %s\ndata %d\n%s\n", p, len(data), data)
		}
	}
	paths := make([]string, n)
	for i := range paths {
		paths[i] = fmt.Sprintf("d%02d/f%04d.txt", i%12, i)
	}
	commit("main", "v1", paths)
	commit("B", "v2", append(paths, "new/deep/added.txt"))
	cmd := exec.Command("git", "-C", root, "fast-import", "--quiet")
	cmd.Stdin = &in
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("fast-import: %v: %s", err, out)
	}
	git(t, root, "reset", "-q", "--hard", "main")
	return root, strings.Fields(git(t, root, "diff", "--name-only", "--no-renames", "main", "B"))
}
