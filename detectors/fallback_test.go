package detectors

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/fsnotify/fsnotify"
)

// A consumer held up on purpose while 15,000 files are written (30,000
// events, more than the kernel queue of fs.inotify.max_queued_events=16384
// plus fsnotify's and our buffers): the kernel overflows, the root goes to
// polling with reason overflow, and the git changed set still holds every
// file.
func TestWatcherRealOverflowFallsBackToPolling(t *testing.T) {
	root := t.TempDir()
	genRepo(t, root, 1)
	head := headOf(t, root)
	if err := os.Mkdir(filepath.Join(root, "many"), 0o755); err != nil {
		t.Fatal(err)
	}
	gate := make(chan struct{})
	c := newCollector()
	w, err := Watch(WatchOptions{Root: root, OnEvent: func(rel string) { <-gate; c.onEvent(rel) }, OnFallback: c.onFallback})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	const n = 15000
	want := make([]string, n)
	for i := range n {
		want[i] = fmt.Sprintf("many/f%05d", i)
		if err := os.WriteFile(filepath.Join(root, want[i]), []byte("x"), 0o644); err != nil {
			close(gate)
			t.Fatal(err)
		}
	}
	close(gate)
	eventually(t, 60*time.Second, "overflow fallback", func() bool { return w.Mode() != ModeNotify })
	st := w.Status()
	if st.Mode != ModePolling || st.Reason != ReasonOverflow || st.Overflows < 1 {
		t.Fatalf("status %+v", st)
	}
	t.Logf("overflowed after %d reported events; detail: %s", st.Events, st.Detail)
	eventually(t, 5*time.Second, "OnFallback", func() bool { return slices.Equal(c.fallbacks(), []string{ReasonOverflow}) })
	if st.WatchedDirs != 0 {
		t.Errorf("polling root still charged for %d watches", st.WatchedDirs)
	}
	cs, err := GitChanged(context.Background(), root, head, SkipPolicy{})
	if err != nil {
		t.Fatal(err)
	}
	if missing, extra := diffSets(want, cs.Paths); missing != nil || extra != nil {
		t.Fatalf("git fallback: %d missing, %d extra", len(missing), len(extra))
	}
}

// The overflow path driven deterministically: the error value fsnotify
// sends, injected on the loop's error channel.
func TestWatcherInjectedOverflow(t *testing.T) {
	root := t.TempDir()
	inject := make(chan error, 1)
	w, c := watch(t, WatchOptions{Root: root, hooks: &watchHooks{inject: inject}})
	inject <- fsnotify.ErrEventOverflow
	eventually(t, 5*time.Second, "fallback", func() bool { return len(c.fallbacks()) == 1 })
	st := w.Status()
	if st.Mode != ModePolling || st.Reason != ReasonOverflow || st.Overflows != 1 || c.fallbacks()[0] != ReasonOverflow {
		t.Fatalf("status %+v, fallbacks %q", st, c.fallbacks())
	}
	if !strings.Contains(st.Detail, "max_queued_events") {
		t.Errorf("detail does not name the limit: %q", st.Detail)
	}
}

func TestWatcherOtherErrorsKeepWatching(t *testing.T) {
	root := t.TempDir()
	inject := make(chan error, 1)
	w, c := watch(t, WatchOptions{Root: root, hooks: &watchHooks{inject: inject}})
	inject <- fmt.Errorf("some read error")
	eventually(t, 5*time.Second, "error recorded", func() bool { return w.Status().LastError == "some read error" })
	writeFile(t, root, "a", "x")
	eventually(t, 5*time.Second, "still reporting", func() bool { return c.has("a") })
	if w.Mode() != ModeNotify {
		t.Fatal(w.Status())
	}
}

// ENOSPC from inotify_add_watch (the kernel watch limit) while listing a new
// directory: this root polls, with a message naming the limit; another
// root keeps notify mode.
func TestWatcherWatchLimitFallsBackAndSparesOtherRoots(t *testing.T) {
	root, other := t.TempDir(), t.TempDir()
	hooks := &watchHooks{add: func(abs string) error {
		if filepath.Base(abs) == "straw" {
			return syscall.ENOSPC
		}
		return nil
	}}
	w, c := watch(t, WatchOptions{Root: root, hooks: hooks})
	ow, oc := watch(t, WatchOptions{Root: other})
	writeFile(t, root, "camel/back/straw/f", "x")
	eventually(t, 10*time.Second, "watch limit fallback", func() bool { return w.Mode() == ModePolling })
	st := w.Status()
	if st.Reason != ReasonWatchLimit || !strings.Contains(st.Detail, "max_user_watches") || !strings.Contains(st.Detail, "straw") {
		t.Fatalf("status %+v", st)
	}
	eventually(t, 5*time.Second, "OnFallback", func() bool { return slices.Equal(c.fallbacks(), []string{ReasonWatchLimit}) })
	writeFile(t, other, "still", "x")
	eventually(t, 5*time.Second, "other root reports", func() bool { return oc.has("still") })
	if ow.Mode() != ModeNotify {
		t.Fatal(ow.Status())
	}

	// At Watch time: the watcher comes back already polling.
	hooks2 := &watchHooks{add: func(string) error { return syscall.ENOSPC }}
	w2, c2 := watch(t, WatchOptions{Root: t.TempDir(), hooks: hooks2})
	if st := w2.Status(); st.Mode != ModePolling || st.Reason != ReasonWatchLimit {
		t.Fatalf("status %+v", st)
	}
	if len(c2.fallbacks()) != 0 {
		t.Fatal("OnFallback called for a watcher that never ran")
	}
}

func TestWatcherDeadWatcherFallsBack(t *testing.T) {
	w, c := watch(t, WatchOptions{Root: t.TempDir()})
	_ = w.fsw.Close() // fsnotify's goroutine ends without our Close
	eventually(t, 5*time.Second, "dead watcher noticed", func() bool { return w.Mode() == ModePolling })
	if st := w.Status(); st.Reason != ReasonWatcherDied {
		t.Fatalf("status %+v", st)
	}
	eventually(t, 5*time.Second, "OnFallback", func() bool { return slices.Equal(c.fallbacks(), []string{ReasonWatcherDied}) })
}

func TestWatcherUnwatchableFilesystem(t *testing.T) {
	hooks := &watchHooks{fsType: func(string) (string, bool) { return "nfs", true }}
	w, _ := watch(t, WatchOptions{Root: t.TempDir(), hooks: hooks})
	st := w.Status()
	if st.Mode != ModePolling || st.Reason != ReasonUnwatchable || !strings.Contains(st.Detail, "nfs") || st.WatchedDirs != 0 {
		t.Fatalf("status %+v", st)
	}
	// The real check on this machine's temporary directory.
	if name, bad := unwatchableFS(t.TempDir()); bad {
		t.Logf("note: the temporary directory is on %s", name)
	}
}
