package roots

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"
	"github.com/syndtr/goleveldb/leveldb/storage"
	"github.com/wakewheel/wakewheel"
	"github.com/wakewheel/wakewheel/internal/clock"
	"github.com/wakewheel/wakewheel/internal/testgit"
	"github.com/wakewheel/wakewheel/scheduler"
	"github.com/wakewheel/wakewheel/store"
)

// epoch is the simulations' time zero.
var epoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// sim drives a real Engine over a memory store under a fake clock, with a
// Manager attached to it as to a runner: Do takes the engine's lock, as the
// runner's loop would serialize it. Handlers run on the test goroutine
// (Engine.Run), supervised runs on their own goroutines; step waits for
// those to end before time moves, so a script is deterministic as long as
// its handlers are.
type sim struct {
	t    *testing.T
	mem  storage.Storage
	db   *store.DB
	eng  *scheduler.Engine
	clk  *clock.Fake
	m    *Manager
	opts Options

	mu    sync.Mutex // the engine's owner
	log   []string   // "key outcome" per finished run
	trace []string   // "+offset key outcome" per finished run
}

func newSim(t *testing.T, opts Options) *sim {
	t.Helper()
	s := &sim{t: t, mem: storage.NewMemStorage(), clk: clock.NewFake(epoch), opts: opts}
	s.open()
	t.Cleanup(s.close)
	return s
}

func (s *sim) open() {
	s.t.Helper()
	db, err := store.OpenStorage(s.mem, store.Options{})
	if err != nil {
		s.t.Fatal(err)
	}
	eng, err := scheduler.NewEngine(db, scheduler.Options{RetryBase: time.Second, RetryCap: 8 * time.Second, RetryAttempts: 5, Logger: zerolog.Nop()}, s.clk.Now())
	if err != nil {
		s.t.Fatal(err)
	}
	opts := s.opts
	opts.Clock = s.clk
	m, err := Open(db, opts)
	if err != nil {
		s.t.Fatal(err)
	}
	m.Register(eng)
	if err := m.Resume(eng, s.clk.Now()); err != nil {
		s.t.Fatal(err)
	}
	s.db, s.eng, s.m = db, eng, m
	m.Attach(s)
}

func (s *sim) close() {
	if s.m != nil {
		s.m.Close()
		s.db.Close()
		s.m = nil
	}
}

// crash stops the manager and drops the store's unflushed write-behind,
// as a SIGKILL would; restart opens everything again on the same storage.
func (s *sim) crash() {
	s.m.Close()
	if err := s.db.Abandon(); err != nil {
		s.t.Fatal(err)
	}
	s.m = nil
}

func (s *sim) restart() { s.open() }

// Do is the Scheduler the manager is attached to.
func (s *sim) Do(ctx context.Context, fn func(e *scheduler.Engine, now time.Time)) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if ctx.Err() != nil {
		return ctx.Err()
	}
	fn(s.eng, s.clk.Now())
	return nil
}

// busy reports whether a supervised run is going on (or finishing).
func (s *sim) busy() bool { return s.m.active.Load() > 0 }

// quiesce waits (in real time) until no supervised run is going on.
func (s *sim) quiesce() {
	s.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for s.busy() {
		if time.Now().After(deadline) {
			s.t.Fatal("a supervised run did not end within 30s")
		}
		time.Sleep(time.Millisecond)
	}
}

// runDue runs every job due now, and those their runs make due now,
// waiting for the supervised runs to end.
func (s *sim) runDue() { s.run(true) }

// runNoWait runs the jobs due now without waiting for supervised runs.
func (s *sim) runNoWait() { s.run(false) }

// run runs the jobs due now; with wait, it lets every supervised run end
// first (quiesce) and goes on while one is still busy.
func (s *sim) run(wait bool) {
	for {
		if wait {
			s.quiesce()
		}
		s.mu.Lock()
		now := s.clk.Now()
		s.eng.Due(now)
		job, ok := s.eng.NextJob(now)
		s.mu.Unlock()
		if !ok {
			if wait && s.busy() {
				continue
			}
			return
		}
		out := s.eng.Run(context.Background(), job)
		s.mu.Lock()
		s.record(job.Deadline.Key, out)
		s.eng.Finish(s.clk.Now(), job, out)
		s.mu.Unlock()
	}
}

// record logs a finished run; s.mu is held.
func (s *sim) record(key string, out scheduler.Outcome) {
	s.log = append(s.log, fmt.Sprintf("%s %s", key, out.Result))
	s.trace = append(s.trace, fmt.Sprintf("%s %s %s", offset(s.clk.Now()), key, out.Result))
}

// offset prints t as the simulations do: its distance from epoch.
func offset(t time.Time) string { return "+" + t.Sub(epoch).String() }

// advance moves the fake clock through every due time up to d from now.
func (s *sim) advance(d time.Duration) {
	target := s.clk.Now().Add(d)
	for {
		s.runDue()
		s.mu.Lock()
		next, ok := s.eng.Next()
		s.mu.Unlock()
		if !ok || next.After(target) {
			break
		}
		s.clk.Set(next)
	}
	s.clk.Set(target)
	s.runDue()
}

// pending returns the due time of key, if pending.
func (s *sim) pending(key string) (time.Time, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	d, ok := s.eng.Get(key)
	return d.At, ok
}

// count returns how many finished runs of key had outcome res ("" for any).
func (s *sim) count(key, res string) int {
	n := 0
	for _, l := range s.log {
		k, r, _ := strings.Cut(l, " ")
		if k == key && (res == "" || r == res) {
			n++
		}
	}
	return n
}

func (s *sim) alerts() []wakewheel.Alert {
	s.t.Helper()
	a, err := s.db.Alerts(0)
	if err != nil {
		s.t.Fatal(err)
	}
	return a
}

func (s *sim) status(path string) Status {
	s.t.Helper()
	st, err := s.m.statusOf(context.Background(), path)
	if err != nil {
		s.t.Fatal(err)
	}
	return st
}

// watchRoot registers and arms path with h, and runs its first detection.
func (s *sim) watchRoot(path string, h Handlers, spec Spec) string {
	s.t.Helper()
	if err := s.m.SetHandlers(path, h); err != nil {
		s.t.Fatal(err)
	}
	spec.Path, spec.Arm = path, true
	st, err := s.m.Watch(context.Background(), spec)
	if err != nil {
		s.t.Fatal(err)
	}
	s.advance(0)
	return st.Path
}

// detect pushes a detection of root due now and runs what falls due.
func (s *sim) detect(root string) {
	s.m.apply(context.Background(), pushNow(KindDetect, root))
	s.advance(0)
}

// waitEvents waits (real time) until the burst of root is pending: the
// watcher's events reached the engine.
func (s *sim) waitEvents(root string) {
	s.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		if _, ok := s.pending(Key(KindBurst, root)); ok {
			return
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("no burst pending for %s after 10s", root)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// ingestLog records what a Go ingest handler received.
type ingestLog struct {
	mu      sync.Mutex
	batches [][]string
	fail    func(b Batch) error
}

func (l *ingestLog) ingest(_ context.Context, b Batch) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.fail != nil {
		if err := l.fail(b); err != nil {
			return err
		}
	}
	l.batches = append(l.batches, slices.Clone(b.Paths))
	return nil
}

func (l *ingestLog) paths() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []string
	for _, b := range l.batches {
		out = append(out, b...)
	}
	return out
}

func (l *ingestLog) set() map[string]int {
	out := map[string]int{}
	for _, p := range l.paths() {
		out[p]++
	}
	return out
}

// git runs git in dir for a test (see internal/testgit).
func git(tb testing.TB, dir string, args ...string) string {
	tb.Helper()
	return string(testgit.Run(tb, dir, args...))
}

func writeFile(tb testing.TB, root, rel, content string) {
	tb.Helper()
	p := filepath.Join(root, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		tb.Fatal(err)
	}
}

// newRepo makes a git repository with the given committed files.
func newRepo(tb testing.TB, files ...string) string {
	tb.Helper()
	dir := tb.TempDir()
	git(tb, dir, "init", "-q")
	for _, f := range files {
		writeFile(tb, dir, f, "v1 "+f+"\n")
	}
	git(tb, dir, "add", "-A")
	git(tb, dir, "commit", "-q", "--allow-empty", "--no-verify", "-m", "A")
	real, err := CleanPath(dir)
	if err != nil {
		tb.Fatal(err)
	}
	return real
}

// diffSets returns what is in want and not got, and in got and not want.
func diffSets(want []string, got map[string]int) (missing, extra []string) {
	w := make(map[string]bool, len(want))
	for _, p := range want {
		w[p] = true
		if got[p] == 0 {
			missing = append(missing, p)
		}
	}
	for p := range got {
		if !w[p] {
			extra = append(extra, p)
		}
	}
	slices.Sort(extra)
	return missing, extra
}

func first(s []string) []string {
	if len(s) > 5 {
		return s[:5]
	}
	return s
}

func longTests() bool { return os.Getenv("WAKEWHEEL_LONG") == "1" }
