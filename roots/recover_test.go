package roots

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// Untracked and dirty files captured before a restart are not handed to
// ingest again after it (the tracker's memory is persisted with the
// capture); one changed while the daemon was down is.
func TestCapturedDirtyFilesAreNotReingestedAfterARestart(t *testing.T) {
	s := newSim(t, Options{})
	root := newRepo(t, "a")
	log := &ingestLog{}
	h := Handlers{Ingest: log.ingest}
	s.watchRoot(root, h, Spec{})
	writeFile(t, root, "a", "dirty")
	for _, f := range []string{"u1", "u2", "dir/u3"} {
		writeFile(t, root, f, "untracked")
	}
	s.detect(root)
	if n := len(log.paths()); n != 4 {
		t.Fatalf("ingested %q before the restart", log.paths())
	}
	for range 3 {
		s.crash()
		s.restart()
		if err := s.m.SetHandlers(root, h); err != nil {
			t.Fatal(err)
		}
		s.advance(time.Second)
	}
	if got := log.paths(); len(got) != 4 {
		t.Fatalf("after 3 restarts ingested %q: the captured files were handed again", got)
	}
	s.crash()
	writeFile(t, root, "u2", "changed while the daemon was down")
	s.restart()
	if err := s.m.SetHandlers(root, h); err != nil {
		t.Fatal(err)
	}
	s.advance(time.Second)
	if got := log.paths(); len(got) != 5 || got[4] != "u2" {
		t.Fatalf("ingested %q, want u2 once more", got)
	}
}

// A root renamed: it says so plainly (status, alert) and runs no command
// in the missing directory, spending no retries; renamed back, it is
// re-armed and drains.
func TestARenamedRootSaysSoAndStopsRetrying(t *testing.T) {
	s := newSim(t, Options{})
	root := newRepo(t, "a")
	runs := filepath.Join(t.TempDir(), "runs")
	cmd := fmt.Sprintf("echo run >> '%s'; cat > /dev/null", runs)
	s.watchRoot(root, Handlers{}, Spec{Ingest: &cmd})
	moved := root + "-moved"
	if err := os.Rename(root, moved); err != nil {
		t.Fatal(err)
	}
	// Let the watcher's own fall-back (root removed) reach the manager
	// before the detection looks: that order must not alert root_polling.
	time.Sleep(300 * time.Millisecond)
	s.detect(root)
	s.advance(10 * time.Minute)
	st := s.status(root)
	if st.Reason != "root renamed" || !strings.Contains(st.Detail, "renamed to "+moved) {
		t.Fatalf("status of a renamed root: %s / %s", st.Reason, st.Detail)
	}
	var codes []string
	for _, a := range s.alerts() {
		codes = append(codes, a.Code)
	}
	if !slices.Equal(codes, []string{AlertRootRenamed}) {
		t.Fatalf("alerts %q, want root_renamed alone (no retries_exhausted)", codes)
	}
	if b, _ := os.ReadFile(runs); len(b) != 0 {
		t.Fatalf("a command ran for the missing directory: %q", b)
	}

	if err := os.Rename(moved, root); err != nil {
		t.Fatal(err)
	}
	writeFile(t, root, "b", "x")
	s.advance(2 * time.Minute) // the next look finds it
	st = s.status(root)
	if st.Mode != ModeNotify || st.Ingested != 1 {
		t.Fatalf("renamed back: mode %s (%s), ingested %d", st.Mode, st.Detail, st.Ingested)
	}
}

// A root removed and created again is re-armed by itself: watched again,
// and its new files ingested, without a restart.
func TestARemovedAndRecreatedRootIsRearmed(t *testing.T) {
	s := newSim(t, Options{})
	root := newRepo(t, "a")
	log := &ingestLog{}
	s.watchRoot(root, Handlers{Ingest: log.ingest}, Spec{})
	if err := os.RemoveAll(root); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for s.status(root).Reason != "root removed" {
		if time.Now().After(deadline) {
			t.Fatalf("the removal was not noticed: %+v", s.status(root))
		}
		time.Sleep(20 * time.Millisecond)
		s.advance(0)
	}
	s.advance(time.Minute)
	if err := os.MkdirAll(root, 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, root, "fresh.txt", "new")
	s.advance(time.Minute)
	st := s.status(root)
	if st.Mode != ModeNotify {
		t.Fatalf("recreated root: mode %s (%s: %s)", st.Mode, st.Reason, st.Detail)
	}
	if got := log.paths(); !slices.Contains(got, "fresh.txt") {
		t.Fatalf("ingested %q, want fresh.txt", got)
	}
	writeFile(t, root, "later.txt", "watched again")
	s.waitEvents(root)
	s.advance(time.Second)
	if got := log.paths(); !slices.Contains(got, "later.txt") {
		t.Fatalf("ingested %q after the re-arm, want later.txt", got)
	}
}
