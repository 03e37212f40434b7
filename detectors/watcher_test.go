package detectors

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// New nested directories made in quick succession, files written at once:
// every one is reported, because a new directory is watched, then listed.
func TestWatcherReportsEveryFileInNewNestedDirs(t *testing.T) {
	root := t.TempDir()
	w, c := watch(t, WatchOptions{Root: root})
	var want []string
	for round := 0; round < 40; round++ {
		deep := fmt.Sprintf("r%02d/a/b/c", round)
		if err := os.MkdirAll(filepath.Join(root, deep), 0o755); err != nil {
			t.Fatal(err)
		}
		for _, d := range []string{fmt.Sprintf("r%02d", round), fmt.Sprintf("r%02d/a", round), fmt.Sprintf("r%02d/a/b", round), deep} {
			for i := 0; i < 10; i++ {
				p := fmt.Sprintf("%s/f%d", d, i)
				writeFile(t, root, p, "x")
				want = append(want, p)
			}
		}
	}
	eventually(t, 20*time.Second, "every new file reported", func() bool { return len(c.missingFrom(want)) == 0 })
	if st := w.Status(); st.Mode != ModeNotify || st.WatchedDirs != 1+40*4 {
		t.Fatalf("status %+v, want notify with %d dirs", st, 1+40*4)
	}
}

func TestWatcherSkipsNoiseDirsAndObservesGitControlFiles(t *testing.T) {
	root := t.TempDir()
	git(t, root, "init", "-q")
	for _, d := range []string{"src/pkg", "node_modules/lib/deep", "src/node_modules/x", "build/obj", "web/dist/js", "web/src"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	w, c := watch(t, WatchOptions{Root: root, Skip: MustSkipPolicy("build", "web/dist")})
	want := []string{"", ".git", "src", "src/pkg", "web", "web/src"}
	if got := w.watchedDirs(); !slices.Equal(got, want) {
		t.Fatalf("watched %q, want %q", got, want)
	}
	if n := w.Status().WatchedDirs; n != len(want) {
		t.Fatalf("WatchedDirs %d, want %d", n, len(want))
	}

	writeFile(t, root, "node_modules/lib/deep/noise.js", "x")
	writeFile(t, root, "node_modules/new/pkg/noise.js", "x")
	writeFile(t, root, "src/node_modules/y/noise.js", "x")
	writeFile(t, root, "build/obj/noise.o", "x")
	writeFile(t, root, "web/dist/js/noise.js", "x")
	writeFile(t, root, "pkg2/node_modules/z/noise.js", "x")
	writeFile(t, root, ".git/objects/ab/noise", "x")
	writeFile(t, root, ".git/index", "noise")
	writeFile(t, root, IndexLockPath, "")
	writeFile(t, root, HeadPath, "ref: refs/heads/other\n")
	if err := os.Remove(filepath.Join(root, IndexLockPath)); err != nil {
		t.Fatal(err)
	}
	writeFile(t, root, "src/pkg/real.go", "x")
	eventually(t, 10*time.Second, "real events", func() bool {
		return c.has("src/pkg/real.go") && c.has(IndexLockPath) && c.has(HeadPath) && c.has("pkg2/node_modules") == false && c.has("pkg2")
	})
	settle(t, c, 200*time.Millisecond, 10*time.Second)
	for _, p := range c.paths() {
		if strings.Contains(p, "noise") || strings.Contains(p, "node_modules") || p == ".git/index" {
			t.Errorf("reported noise %q", p)
		}
	}
	got := w.watchedDirs()
	for _, d := range got {
		if strings.Contains(d, "node_modules") || strings.HasPrefix(d, "build") || strings.HasPrefix(d, "web/dist") || strings.HasPrefix(d, ".git/") {
			t.Errorf("skipped directory %q is watched", d)
		}
	}
	if !slices.Contains(got, "pkg2") {
		t.Errorf("new directory pkg2 not watched: %q", got)
	}
}

func TestWatcherDropsWatchesOfRemovedDirs(t *testing.T) {
	root := t.TempDir()
	writeFile(t, root, "a/b/c/f.txt", "x")
	writeFile(t, root, "keep/g.txt", "x")
	w, c := watch(t, WatchOptions{Root: root})
	if n := w.Status().WatchedDirs; n != 5 {
		t.Fatalf("WatchedDirs %d, want 5", n)
	}
	if err := os.RemoveAll(filepath.Join(root, "a")); err != nil {
		t.Fatal(err)
	}
	eventually(t, 10*time.Second, "watches dropped", func() bool { return w.Status().WatchedDirs == 2 })
	if got := w.watchedDirs(); !slices.Equal(got, []string{"", "keep"}) {
		t.Fatalf("watched %q", got)
	}
	eventually(t, 5*time.Second, "removal reported", func() bool { return c.has("a") })
	// The same name again is a new directory, watched and listed afresh.
	writeFile(t, root, "a/b/again.txt", "x")
	eventually(t, 10*time.Second, "re-created dir reported", func() bool { return c.has("a/b/again.txt") })
	eventually(t, 5*time.Second, "re-created dir watched", func() bool { return w.Status().WatchedDirs == 4 })
}

// A renamed directory is watched under its new name only: an event inside
// it is reported with the new path, never the stale one.
func TestWatcherFollowsRenamedDirs(t *testing.T) {
	root := t.TempDir()
	writeFile(t, root, "a/b/c/f.txt", "x")
	w, c := watch(t, WatchOptions{Root: root})
	if err := os.Rename(filepath.Join(root, "a"), filepath.Join(root, "z")); err != nil {
		t.Fatal(err)
	}
	eventually(t, 10*time.Second, "rename handled", func() bool {
		return slices.Equal(w.watchedDirs(), []string{"", "z", "z/b", "z/b/c"})
	})
	writeFile(t, root, "z/b/c/new.txt", "x")
	eventually(t, 10*time.Second, "event under new name", func() bool { return c.has("z/b/c/new.txt") })
	if c.has("a/b/c/new.txt") {
		t.Fatal("reported the stale path")
	}
	// Moved out of the root: no watch left behind.
	if err := os.Rename(filepath.Join(root, "z"), filepath.Join(t.TempDir(), "out")); err != nil {
		t.Fatal(err)
	}
	eventually(t, 10*time.Second, "moved-out dir dropped", func() bool { return w.Status().WatchedDirs == 1 })
}

func TestWatcherWeirdNames(t *testing.T) {
	root := t.TempDir()
	writeFile(t, root, "old/keep", "x")
	w, c := watch(t, WatchOptions{Root: root})
	var want []string
	for _, n := range weirdNames {
		for _, d := range []string{"old/", "fresh dir \n\"é\"/sub\t/"} {
			writeFile(t, root, d+n, "x")
			want = append(want, d+n)
		}
	}
	eventually(t, 10*time.Second, "weird names reported", func() bool { return len(c.missingFrom(want)) == 0 })
	settle(t, c, 200*time.Millisecond, 10*time.Second)
	// Nothing reported that is not a real path: every report is a file
	// written, or one of their directories.
	valid := map[string]bool{"fresh dir \n\"é\"": true, "fresh dir \n\"é\"/sub\t": true}
	for _, p := range want {
		valid[p] = true
	}
	for _, d := range []string{"dir with space", "日本語"} {
		valid["old/"+d] = true
		valid["fresh dir \n\"é\"/sub\t/"+d] = true
	}
	for _, p := range c.paths() {
		if !valid[p] {
			t.Errorf("wrong path reported: %q", p)
		}
	}
	if w.Status().Mode != ModeNotify {
		t.Fatal(w.Status())
	}
}

func TestWatcherRootRemoved(t *testing.T) {
	root := filepath.Join(t.TempDir(), "root")
	writeFile(t, root, "f", "x")
	w, c := watch(t, WatchOptions{Root: root})
	if err := os.RemoveAll(root); err != nil {
		t.Fatal(err)
	}
	eventually(t, 10*time.Second, "polling after root removal", func() bool { return w.Mode() == ModePolling })
	eventually(t, 5*time.Second, "fallback reported", func() bool { return slices.Equal(c.fallbacks(), []string{ReasonRootGone}) })
}

func TestWatcherCloseStopsCallbacks(t *testing.T) {
	root := t.TempDir()
	w, c := watch(t, WatchOptions{Root: root})
	writeFile(t, root, "a", "x")
	eventually(t, 5*time.Second, "first event", func() bool { return c.has("a") })
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	n := c.count()
	writeFile(t, root, "b", "x")
	time.Sleep(100 * time.Millisecond)
	if c.count() != n || w.Mode() != ModeClosed || len(c.fallbacks()) != 0 || w.Status().WatchedDirs != 0 {
		t.Fatalf("after Close: %+v, %d events (was %d), fallbacks %q", w.Status(), c.count(), n, c.fallbacks())
	}
	if err := w.Close(); err != nil {
		t.Fatal("second Close:", err)
	}
}

func TestWatchRejectsBadRoots(t *testing.T) {
	file := filepath.Join(t.TempDir(), "f")
	writeFile(t, filepath.Dir(file), "f", "x")
	for _, r := range []string{file, filepath.Join(file, "missing")} {
		if _, err := Watch(WatchOptions{Root: r}); err == nil {
			t.Errorf("Watch(%q): want an error", r)
		}
	}
}

// A slow callback must not stop other roots' watchers: each root has its
// own fsnotify instance and goroutine.
func TestWatchersAreIndependent(t *testing.T) {
	slowRoot, fastRoot := t.TempDir(), t.TempDir()
	block := make(chan struct{})
	slow, err := Watch(WatchOptions{Root: slowRoot, OnEvent: func(string) { <-block }})
	if err != nil {
		t.Fatal(err)
	}
	defer slow.Close()
	defer close(block) // runs first: unblock, then close
	_, c := watch(t, WatchOptions{Root: fastRoot})
	writeFile(t, slowRoot, "s", "x")
	writeFile(t, fastRoot, "f", "x")
	eventually(t, 5*time.Second, "fast root event", func() bool { return c.has("f") })
}
