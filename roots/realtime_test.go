package roots

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"
	"github.com/wakewheel/wakewheel/internal/clock"
	"github.com/wakewheel/wakewheel/internal/enginetest"
	"github.com/wakewheel/wakewheel/scheduler"
	"github.com/wakewheel/wakewheel/store"
)

// live is a Manager on a real Runner and the wall clock.
type live struct {
	m  *Manager
	r  *scheduler.Runner
	db *store.DB
}

func startLive(t *testing.T, opts Options) *live {
	t.Helper()
	db, eng := enginetest.Mem(t, scheduler.Options{}, time.Now())
	opts.Logger = zerolog.Nop()
	m, err := Open(db, opts)
	if err != nil {
		t.Fatal(err)
	}
	m.Register(eng)
	if err := m.Resume(eng, time.Now()); err != nil {
		t.Fatal(err)
	}
	r := scheduler.Start(eng, clock.Real{})
	m.Attach(r)
	l := &live{m: m, r: r, db: db}
	t.Cleanup(func() { m.Close(); r.Stop() })
	return l
}

func (l *live) status(t *testing.T, path string) Status {
	t.Helper()
	st, err := l.m.statusOf(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// waitDrained waits until root has detected at least detections times and
// its backlog is empty with nothing running.
func (l *live) waitDrained(t *testing.T, root string, detections uint64, d time.Duration) Status {
	t.Helper()
	deadline := time.Now().Add(d)
	for {
		st := l.status(t, root)
		if st.Detections >= detections && st.Backlog == 0 && st.Running == "" {
			return st
		}
		if time.Now().After(deadline) {
			t.Fatalf("not drained after %v: %+v", d, st)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Must-show: a consumer slowed on purpose until the kernel's event queue
// overflows (16,384 events by default). The root falls back, the overflow
// is counted in status, and the git detection that follows still captures
// every changed path: all of them are ingested.
func TestOverflowStillIngestsEveryPath(t *testing.T) {
	root := newRepo(t, "README")
	if err := os.Mkdir(filepath.Join(root, "many"), 0o755); err != nil {
		t.Fatal(err)
	}
	gate := make(chan struct{})
	l := startLive(t, Options{hooks: &testHooks{onEvent: func(string, string) { <-gate }}})
	log := &ingestLog{}
	if err := l.m.SetHandlers(root, Handlers{Ingest: log.ingest}); err != nil {
		t.Fatal(err)
	}
	if _, err := l.m.Watch(context.Background(), Spec{Path: root, Arm: true}); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for l.status(t, root).Mode != ModeNotify {
		if time.Now().After(deadline) {
			t.Fatalf("not watching: %+v", l.status(t, root))
		}
		time.Sleep(10 * time.Millisecond)
	}
	const n = 15000
	want := make([]string, n)
	for i := range want {
		want[i] = fmt.Sprintf("many/f%05d", i)
		if err := os.WriteFile(filepath.Join(root, want[i]), []byte("x"), 0o644); err != nil {
			close(gate)
			t.Fatal(err)
		}
	}
	close(gate)
	deadline = time.Now().Add(60 * time.Second)
	for l.status(t, root).Overflows == 0 {
		if time.Now().After(deadline) {
			t.Fatalf("no overflow: %+v", l.status(t, root))
		}
		time.Sleep(10 * time.Millisecond)
	}
	st := l.waitDrained(t, root, 2, 60*time.Second)
	missing, extra := diffSets(want, log.set())
	t.Logf("overflows %d, mode now %s; ingested %d paths in %d batches; missing %d, extra %d",
		st.Overflows, st.Mode, len(log.paths()), st.Batches, len(missing), len(extra))
	if len(missing) != 0 || len(extra) != 0 {
		t.Fatalf("missing %q, extra %q", first(missing), first(extra))
	}
}

// Must-show: paths with spaces, newlines, quotes, backslashes, leading
// dashes, non-ASCII and non-UTF-8 bytes reach a real ingest command
// exactly, NUL-separated on stdin: 0 wrong paths, for a git root and for a
// plain directory.
func TestAwkwardPathsReachTheIngestCommandExactly(t *testing.T) {
	names := []string{
		"with space.txt", "new\nline.txt", "tab\there", `dq"uote.md`, "sq'uote.md", `back\slash`,
		"-leading-dash", "ünïcode/ファイル.txt", "emoji 🎉.txt", "latin1-\xe9\xe8.bin", " lead and trail ",
		"dir with space/nested\nnewline/x y.go",
	}
	for _, kind := range []string{"git", "dir"} {
		t.Run(kind, func(t *testing.T) {
			var root string
			if kind == "git" {
				root = newRepo(t, "README")
			} else {
				var err error
				if root, err = CleanPath(t.TempDir()); err != nil {
					t.Fatal(err)
				}
			}
			out := filepath.Join(t.TempDir(), "ingested")
			s := newSim(t, Options{})
			cmd := fmt.Sprintf("cat >> '%s'", out)
			s.watchRoot(root, Handlers{}, Spec{Ingest: &cmd})
			if kind == "dir" {
				os.Remove(out) // the first detection of a plain directory is its inventory: none yet
			}
			for _, n := range names {
				writeFile(t, root, n, "content of "+n)
			}
			s.waitEvents(root)
			time.Sleep(200 * time.Millisecond) // let the watcher report them all
			s.advance(time.Minute)
			b, err := os.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			got := strings.Split(strings.TrimSuffix(string(b), "\x00"), "\x00")
			slices.Sort(got)
			want := slices.Clone(names)
			slices.Sort(want)
			wrong := 0
			missing, extra := diffSets(want, countOf(got))
			wrong = len(missing) + len(extra)
			t.Logf("%s root: %d paths at the command, %d wrong", kind, len(got), wrong)
			if wrong != 0 || !bytes.HasSuffix(b, []byte{0}) {
				t.Fatalf("missing %q, extra %q", missing, extra)
			}
		})
	}
}

func countOf(s []string) map[string]int {
	m := map[string]int{}
	for _, x := range s {
		m[x]++
	}
	return m
}
