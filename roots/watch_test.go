package roots

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/wakewheel/wakewheel"
)

// A watch budget too small for two roots evicts the least recently used
// one; the evicted root is polled on traffic and re-armed on its next use
// (a detection that finds it changed), evicting the other in turn.
func TestEvictedRootRearmsOnTheNextUse(t *testing.T) {
	s := newSim(t, Options{WatchBudget: 4})
	a, b := newRepo(t, "x/1"), newRepo(t, "x/1") // 3 watched directories each: root, .git, x
	la, lb := &ingestLog{}, &ingestLog{}
	s.watchRoot(a, Handlers{Ingest: la.ingest}, Spec{})
	if st := s.status(a); st.Mode != ModeNotify {
		t.Fatalf("a: %+v", st)
	}
	s.watchRoot(b, Handlers{Ingest: lb.ingest}, Spec{})
	sa, sb := s.status(a), s.status(b)
	if sa.Mode != ModeEvicted || sb.Mode != ModeNotify || !strings.Contains(sa.Detail, "re-armed on its next use") {
		t.Fatalf("a %s (%s), b %s", sa.Mode, sa.Detail, sb.Mode)
	}
	// Idle: traffic polls it, and it stays evicted (no thrashing).
	s.clk.Advance(time.Minute)
	s.m.Traffic("remind")
	s.waitPending(Key(KindDetect, a))
	s.advance(time.Second)
	if st := s.status(a); st.Mode != ModeEvicted {
		t.Fatalf("idle evicted root re-armed: %+v", st)
	}
	// Used: a change is found by the traffic poll, and it is re-armed.
	writeFile(t, a, "x/2", "new")
	s.clk.Advance(time.Minute)
	s.m.Traffic("post")
	s.waitPending(Key(KindDetect, a))
	s.advance(time.Second)
	if got := la.paths(); len(got) != 1 || got[0] != "x/2" {
		t.Fatalf("a ingested %q", got)
	}
	if sa, sb := s.status(a), s.status(b); sa.Mode != ModeNotify || sb.Mode != ModeEvicted {
		t.Fatalf("after use: a %s, b %s", sa.Mode, sb.Mode)
	}
	// And its watcher works: an event extends its burst.
	writeFile(t, a, "x/3", "new")
	s.waitEvents(a)
	s.advance(10 * time.Second)
	if n := len(la.paths()); n != 2 {
		t.Fatalf("a ingested %q", la.paths())
	}
}

func (s *sim) waitPending(key string) {
	s.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		if _, ok := s.pending(key); ok {
			return
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("%s never pending", key)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// Status is honest: after a restart it says resuming until the watcher
// runs again (the watcher of the dead process is not claimed); a watcher
// that died says polling with its reason, and an alert says so too; a root
// the budget cannot hold says polling with a message naming the budget.
func TestResumedStatusNeverClaimsADeadWatcher(t *testing.T) {
	s := newSim(t, Options{WatchBudget: 3})
	root := newRepo(t, "x/1")
	s.watchRoot(root, Handlers{}, Spec{})
	if st := s.status(root); st.Mode != ModeNotify || st.WatchedDirs != 3 {
		t.Fatalf("%+v", st)
	}
	s.crash()
	s.restart()
	if st := s.status(root); st.Mode != ModeResuming || st.WatchedDirs != 0 {
		t.Fatalf("after restart, before the first detection: %+v", st)
	}
	s.advance(time.Second)
	if st := s.status(root); st.Mode != ModeNotify {
		t.Fatalf("%+v", st)
	}

	// The watcher dies with its root directory moved away.
	moved := root + ".moved"
	if err := os.Rename(root, moved); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(moved) })
	deadline := time.Now().Add(10 * time.Second)
	for s.status(root).Mode == ModeNotify {
		if time.Now().After(deadline) {
			t.Fatal("still notify after the root moved")
		}
		time.Sleep(5 * time.Millisecond)
	}
	st := s.status(root)
	if st.Mode != ModePolling || st.Reason == "" || !strings.Contains(st.Detail, "polling") {
		t.Fatalf("%+v", st)
	}
	// The fall-back pushed a detection: it finds the directory under its
	// new name and says so (one alert, not also a fall to polling).
	deadline = time.Now().Add(10 * time.Second)
	for !slices.ContainsFunc(s.alerts(), func(a wakewheel.Alert) bool { return a.Code == AlertRootRenamed }) {
		if time.Now().After(deadline) {
			t.Fatalf("no alert %s; alerts %+v", AlertRootRenamed, s.alerts())
		}
		time.Sleep(5 * time.Millisecond)
		s.advance(0)
	}

	// Too big for the budget: polling, and the message says why.
	big := newRepo(t, "a/1", "b/1", "c/1")
	s.watchRoot(big, Handlers{}, Spec{})
	st = s.status(big)
	if st.Mode != ModePolling || st.Reason != "watch budget" || !strings.Contains(st.Detail, "budget is 3") {
		t.Fatalf("%+v", st)
	}
}

func (s *sim) waitAlert(code string) {
	s.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		for _, a := range s.alerts() {
			if a.Code == code {
				return
			}
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("no alert %s; alerts %+v", code, s.alerts())
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// Fail-open, in the manager: a detection that fails (a broken repository),
// an ingest that panics, or a traffic tick with nothing to do never reach a
// caller: they become retries and alerts, status stays answerable, and the
// paths stay queued until an ingest succeeds.
func TestFailOpenSwallowsAFailingVigil(t *testing.T) {
	s := newSim(t, Options{})
	root := newRepo(t, "a")
	panicked := 0
	log := &ingestLog{}
	s.watchRoot(root, Handlers{Ingest: func(ctx context.Context, b Batch) error {
		if panicked < 2 {
			panicked++
			panic("ingest bug")
		}
		return log.ingest(ctx, b)
	}}, Spec{})
	writeFile(t, root, "b", "x")
	s.detect(root)
	s.advance(time.Minute)
	if got := log.paths(); len(got) != 1 || got[0] != "b" {
		t.Fatalf("after two panics, ingested %q", got)
	}
	// Break the repository: detections fail, are retried, then alerted.
	if err := os.WriteFile(filepath.Join(root, ".git", "HEAD"), []byte("garbage"), 0o644); err != nil {
		t.Fatal(err)
	}
	s.m.Traffic("remind") // returns at once whatever happens
	s.detect(root)
	s.advance(time.Hour)
	st := s.status(root)
	if st.LastError == "" {
		t.Fatalf("no error in status: %+v", st)
	}
	s.waitAlert("retries_exhausted")
	if _, err := s.m.Statuses(context.Background()); err != nil {
		t.Fatal(err)
	}
}
