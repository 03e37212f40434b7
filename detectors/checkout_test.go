package detectors

import (
	"bytes"
	"context"
	"fmt"
	"testing"
	"time"
)

// makeCheckoutRepo builds branch main (A) with n files and branch B that
// changes every one of them and adds newFiles files in new nested
// directories, and leaves main checked out. It returns A's and B's commits.
func makeCheckoutRepo(t *testing.T, root string, n, newFiles int) (a, b string) {
	t.Helper()
	paths := treePaths(n)
	added := make([]string, newFiles)
	for i := range added {
		added[i] = fmt.Sprintf("new/n%02d/deep/er/f%04d.txt", i/25, i)
	}
	importRepo(t, root,
		importCommit{ref: "main", msg: "A", paths: paths, content: func(p string) string { return "v1 " + p + "\n" }},
		importCommit{ref: "B", msg: "B", from: "main", paths: append(paths, added...), content: func(p string) string { return "v2 " + p + "\n" }})
	return headOf(t, root), string(bytes.TrimSpace(git(t, root, "rev-parse", "B")))
}

// A real `git checkout` with the watcher running: the changed set equals
// git's own diff of the two commits (0 missing, 0 extra), and the watcher
// kept up (no overflow) and reported every changed path.
func testCheckout(t *testing.T, n, newFiles int) {
	root := t.TempDir()
	start := time.Now()
	a, b := makeCheckoutRepo(t, root, n, newFiles)
	t.Logf("generated %d files + %d new on B in %v", n, newFiles, time.Since(start).Round(time.Millisecond))

	w, c := watch(t, WatchOptions{Root: root})
	dirsBefore := w.Status().WatchedDirs
	start = time.Now()
	git(t, root, "checkout", "-q", "B")
	took := time.Since(start)
	settle(t, c, 300*time.Millisecond, 60*time.Second)
	st := w.Status()
	t.Logf("checkout of %d paths took %v; watcher reported %d events (%d distinct paths), watched dirs %d -> %d",
		n+newFiles, took.Round(time.Millisecond), st.Events, len(c.paths()), dirsBefore, st.WatchedDirs)

	want := splitNUL(git(t, root, "diff", "--name-only", "--no-renames", "-z", a, b))
	if len(want) != n+newFiles {
		t.Fatalf("git diff A B has %d paths, want %d", len(want), n+newFiles)
	}
	cs, err := GitChanged(context.Background(), root, a, SkipPolicy{})
	if err != nil {
		t.Fatal(err)
	}
	if cs.Head != b {
		t.Fatalf("head %s, want %s", cs.Head, b)
	}
	missing, extra := diffSets(sortedUnique(want), cs.Paths)
	t.Logf("GitChanged(A): %d paths, %d missing, %d extra", len(cs.Paths), len(missing), len(extra))
	if len(missing) != 0 || len(extra) != 0 {
		t.Fatalf("missing %q extra %q", head(missing), head(extra))
	}

	if st.Mode != ModeNotify {
		t.Fatalf("watcher fell back during the checkout: %+v", st)
	}
	if m := c.missingFrom(want); len(m) != 0 {
		t.Fatalf("watcher missed %d of %d changed paths, e.g. %q", len(m), len(want), head(m))
	}
	if !c.has(IndexLockPath) || !c.has(HeadPath) {
		t.Errorf("index.lock seen %v, HEAD seen %v", c.has(IndexLockPath), c.has(HeadPath))
	}
}

func head(s []string) []string {
	if len(s) > 5 {
		return s[:5]
	}
	return s
}

func TestCheckout2kFiles(t *testing.T) { testCheckout(t, 2000, 500) }

// The design's case: 10,000 files, >= 10,000 changed paths, 500 new files
// in new nested directories. About 10-15 s under -race here: run with
// WAKEWHEEL_LONG=1.
func TestCheckout10kFiles(t *testing.T) {
	if !longTests() {
		t.Skip("set WAKEWHEEL_LONG=1")
	}
	testCheckout(t, 10000, 500)
}
