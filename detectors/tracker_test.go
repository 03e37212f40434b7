package detectors

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func trackerRepo(t *testing.T, files ...string) (dir, head string) {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	git(t, dir, "init", "-q")
	for _, f := range files {
		writeFile(t, dir, f, "v1 "+f+"\n")
	}
	git(t, dir, "add", "-A")
	git(t, dir, "commit", "-q", "--allow-empty", "-m", "A")
	return dir, headOf(t, dir)
}

func detect(t *testing.T, tr *Tracker, s Scan, capture bool) Result {
	t.Helper()
	res, err := tr.Detect(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	if capture {
		tr.Captured()
	}
	slices.Sort(res.Paths)
	return res
}

// A dirty file is handed once, not at every detection until it is
// committed; changed again, or reverted, it is handed again.
func TestTrackerHandsADirtyFileOnce(t *testing.T) {
	dir, head := trackerRepo(t, "a.go", "b.go")
	tr := NewTracker(dir, SkipPolicy{})
	if git, locked := tr.Probe(); !git || locked {
		t.Fatalf("Probe = %v, %v; want a git root, unlocked", git, locked)
	}
	writeFile(t, dir, "a.go", "v2\n")
	writeFile(t, dir, "new.txt", "untracked\n")
	res := detect(t, tr, Scan{SinceRef: head}, true)
	if !res.Git || res.Head != head || !slices.Equal(res.Paths, []string{"a.go", "new.txt"}) {
		t.Fatalf("first detection %+v", res)
	}
	if res := detect(t, tr, Scan{SinceRef: head}, true); len(res.Paths) != 0 {
		t.Fatalf("unchanged dirty files handed again: %q", res.Paths)
	}
	writeFile(t, dir, "a.go", "v1 a.go\n") // reverted: leaves the status
	if res := detect(t, tr, Scan{SinceRef: head}, true); !slices.Equal(res.Paths, []string{"a.go"}) {
		t.Fatalf("a reverted file: %q, want a.go", res.Paths)
	}
}

// Memory takes effect only when the result is captured: a capture that
// failed sees the same set again.
// A checkout's files are committed and clean: handed once, never lstat'd
// nor remembered (the memory holds only what status listed), so a big
// checkout costs no lstat pass. A file dirty when captured and then
// committed as it was is not handed again.
func TestTrackerRemembersOnlyTheWorkTreesPart(t *testing.T) {
	dir, a := trackerRepo(t, "a.go", "b.go")
	tr := NewTracker(dir, SkipPolicy{})
	writeFile(t, dir, "c.go", "dirty, then committed as is\n")
	if res := detect(t, tr, Scan{SinceRef: a}, true); !slices.Equal(res.Paths, []string{"c.go"}) {
		t.Fatalf("first detection: %q", res.Paths)
	}
	writeFile(t, dir, "a.go", "v2\n")
	writeFile(t, dir, "d.go", "dirty\n")
	git(t, dir, "add", "a.go", "c.go")
	git(t, dir, "commit", "-q", "-m", "B")
	res := detect(t, tr, Scan{SinceRef: a}, true)
	if !slices.Equal(res.Paths, []string{"a.go", "d.go"}) {
		t.Fatalf("after the commit: %q, want a.go (committed) and d.go (dirty); c.go was handed already", res.Paths)
	}
	if len(tr.captured) != 1 {
		t.Fatalf("remembered %d paths, want only d.go: %v", len(tr.captured), tr.captured)
	}
	if _, ok := tr.captured["d.go"]; !ok {
		t.Fatalf("d.go not remembered: %v", tr.captured)
	}
	if res := detect(t, tr, Scan{SinceRef: res.Head}, true); len(res.Paths) != 0 {
		t.Fatalf("handed again: %q", res.Paths)
	}
}

func TestTrackerRemembersOnlyCapturedSets(t *testing.T) {
	dir, head := trackerRepo(t, "a.go")
	tr := NewTracker(dir, SkipPolicy{})
	writeFile(t, dir, "a.go", "v2\n")
	detect(t, tr, Scan{SinceRef: head}, false)
	if res := detect(t, tr, Scan{SinceRef: head}, false); !slices.Equal(res.Paths, []string{"a.go"}) {
		t.Fatalf("after an uncaptured detection: %q, want a.go again", res.Paths)
	}
}

// A since ref that no longer exists: every tracked file once, with the
// new HEAD.
func TestTrackerInventoriesWhenTheRefIsGone(t *testing.T) {
	dir, head := trackerRepo(t, "a.go", "sub/b.go")
	tr := NewTracker(dir, SkipPolicy{})
	gone := "0123456789abcdef0123456789abcdef01234567"
	res := detect(t, tr, Scan{SinceRef: gone}, true)
	if !res.Inventory || res.Head != head || !slices.Equal(res.Paths, []string{"a.go", "sub/b.go"}) {
		t.Fatalf("got %+v, want an inventory of the tracked files", res)
	}
}

// A plain directory: the first detection is an inventory, then only the
// dirty directories are compared.
func TestTrackerPlainDirectory(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "x/1.txt", "1")
	writeFile(t, dir, "y/2.txt", "2")
	tr := NewTracker(dir, SkipPolicy{})
	if git, _ := tr.Probe(); git {
		t.Fatal("a temp directory inside a work tree")
	}
	if res := detect(t, tr, Scan{}, true); res.Git || !slices.Equal(res.Paths, []string{"x/1.txt", "y/2.txt"}) {
		t.Fatalf("inventory %+v", res)
	}
	writeFile(t, dir, "x/1.txt", "changed")
	writeFile(t, dir, "y/2.txt", "changed, not looked at")
	if res := detect(t, tr, Scan{Dirty: []string{"x"}}, true); !slices.Equal(res.Paths, []string{"x/1.txt"}) {
		t.Fatalf("dirty x: %q", res.Paths)
	}
	if err := os.Remove(filepath.Join(dir, "x/1.txt")); err != nil {
		t.Fatal(err)
	}
	if res := detect(t, tr, Scan{Full: true}, true); !slices.Equal(res.Paths, []string{"x/1.txt", "y/2.txt"}) {
		t.Fatalf("full scan: %q", res.Paths)
	}
}

// The memory persisted with a capture survives a restart: a new tracker
// restored from it does not hand the dirty and untracked files again,
// and still hands one that changed since.
func TestTrackerMemorySurvivesARestart(t *testing.T) {
	dir, head := trackerRepo(t, "a.go")
	tr := NewTracker(dir, SkipPolicy{})
	writeFile(t, dir, "a.go", "v2\n")
	writeFile(t, dir, "new file.txt", "untracked\n")
	writeFile(t, dir, "other.txt", "untracked\n")
	detect(t, tr, Scan{SinceRef: head}, false)
	mem := tr.Memory()
	tr.Captured()

	again := NewTracker(dir, SkipPolicy{})
	if err := again.Restore(mem); err != nil {
		t.Fatal(err)
	}
	writeFile(t, dir, "other.txt", "changed while the daemon was down\n")
	if res := detect(t, again, Scan{SinceRef: head}, true); !slices.Equal(res.Paths, []string{"other.txt"}) {
		t.Fatalf("after a restart: %q, want only other.txt", res.Paths)
	}
	if err := NewTracker(dir, SkipPolicy{}).Restore([]byte{1, 200}); !errors.Is(err, ErrBadMemory) {
		t.Fatalf("a truncated memory: %v", err)
	}
}
