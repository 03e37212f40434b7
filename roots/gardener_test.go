package roots

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// The seed's test map, behaviour by behaviour (docs/TEST-MAP.md), driven
// through a real Engine under a fake clock.

// A burst of 1000 changed files, 31x the drain budget, drains completely
// in FIFO order: no tail is lost, none is handed twice, even when a batch
// in the middle fails once.
func TestBurstBiggerThanBudgetDrainsCompletely(t *testing.T) {
	s := newSim(t, Options{})
	root := newRepo(t, "README")
	log := &ingestLog{}
	failed := false
	log.fail = func(b Batch) error {
		if !failed && len(log.batches) == 5 {
			failed = true
			return errors.New("index busy")
		}
		return nil
	}
	s.watchRoot(root, Handlers{Ingest: log.ingest}, Spec{})
	var want []string
	for i := range 1000 {
		p := fmt.Sprintf("src/d%02d/f%04d.go", i/100, i)
		writeFile(t, root, p, "x")
		want = append(want, p)
	}
	s.detect(root)
	if st := s.status(root); st.Backlog == 0 && len(log.paths()) < 1000 {
		t.Fatalf("nothing captured: %+v", st)
	}
	s.advance(time.Minute)
	got := log.paths()
	if !slices.Equal(got, want) {
		missing, extra := diffSets(want, log.set())
		t.Fatalf("ingested %d paths (missing %d %q, extra %q), want the 1000 in order", len(got), len(missing), first(missing), first(extra))
	}
	for i, b := range log.batches {
		if len(b) > 32 {
			t.Fatalf("batch %d has %d paths", i, len(b))
		}
	}
	if st := s.status(root); st.Backlog != 0 || st.Ingested != 1000 {
		t.Fatalf("status %+v", st)
	}
	if n := s.count(Key(KindDrain, root), "retry"); n != 1 {
		t.Fatalf("%d drain retries, want 1", n)
	}
	t.Logf("%d batches, %d drain firings", len(log.batches), s.count(Key(KindDrain, root), ""))
}

// A brand-new untracked file (git diff is blind to it) is detected, through
// the real watcher and the burst window.
func TestDetectsNewUntrackedFile(t *testing.T) {
	s := newSim(t, Options{})
	root := newRepo(t, "main.go")
	log := &ingestLog{}
	s.watchRoot(root, Handlers{Ingest: log.ingest}, Spec{})
	writeFile(t, root, "pkg/brand new.go", "package pkg")
	s.waitEvents(root)
	s.advance(499 * time.Millisecond)
	if len(log.paths()) != 0 {
		t.Fatalf("detected before the burst's silence: %q", log.paths())
	}
	s.advance(10 * time.Second)
	if got := log.paths(); !slices.Equal(got, []string{"pkg/brand new.go"}) {
		t.Fatalf("ingested %q", got)
	}
	// A second burst elsewhere does not hand the unchanged untracked file again.
	writeFile(t, root, "main.go", "package main // edited")
	s.waitEvents(root)
	s.advance(10 * time.Second)
	if got := log.paths(); !slices.Equal(got, []string{"pkg/brand new.go", "main.go"}) {
		t.Fatalf("ingested %q", got)
	}
}

// A new file in a noise directory (node_modules, a configured skip entry)
// is not detected, and such directories are never watched.
func TestIgnoresNewUntrackedFileInNoiseDir(t *testing.T) {
	s := newSim(t, Options{})
	root := newRepo(t, "main.go")
	log := &ingestLog{}
	s.watchRoot(root, Handlers{Ingest: log.ingest}, Spec{Skip: []string{"dist"}})
	writeFile(t, root, "node_modules/left-pad/index.js", "x")
	writeFile(t, root, "web/dist/bundle.js", "x")
	writeFile(t, root, "web/app.js", "x")
	s.detect(root)
	s.advance(10 * time.Second)
	if got := log.paths(); !slices.Equal(got, []string{"web/app.js"}) {
		t.Fatalf("ingested %q, want only web/app.js", got)
	}
}

// Bursts inside the quiet window collapse into one reconcile, 45 s after
// the last drain; endless activity cannot starve it past the cap.
func TestQuietWindowCoalescesBurstsThenReconciles(t *testing.T) {
	s := newSim(t, Options{ReconcileCap: 3 * time.Minute})
	root := newRepo(t, "a")
	log := &ingestLog{}
	var runs []time.Time
	rec := func(context.Context, ReconcileRun) error { runs = append(runs, s.clk.Now()); return nil }
	s.watchRoot(root, Handlers{Ingest: log.ingest, Reconcile: rec}, Spec{})
	start := s.clk.Now()
	for i := range 3 { // three bursts, 20 s apart
		writeFile(t, root, fmt.Sprintf("f%d", i), "x")
		s.detect(root)
		s.advance(20 * time.Second)
	}
	// The last drain was at 40 s: nothing before 85 s, one run at 85 s.
	s.advance(start.Add(85*time.Second).Sub(s.clk.Now()) - time.Millisecond)
	if len(runs) != 0 {
		t.Fatalf("reconciled at %v, inside the quiet window", runs[0].Sub(start))
	}
	s.advance(time.Second)
	if len(runs) != 1 || runs[0].Sub(start) != 85*time.Second {
		t.Fatalf("reconcile runs %v, want one at 85s", offsets(runs, start))
	}
	// Activity every 30 s forever: the cap (3m) still lets it run.
	runs = nil
	start = s.clk.Now()
	for i := range 12 {
		writeFile(t, root, fmt.Sprintf("g%d", i), "x")
		s.detect(root)
		s.advance(30 * time.Second)
	}
	if len(runs) == 0 || runs[0].Sub(start) > 3*time.Minute+time.Second {
		t.Fatalf("reconcile starved by activity: runs %v", offsets(runs, start))
	}
	t.Logf("under churn, runs at %v", offsets(runs, start))
}

func offsets(ts []time.Time, start time.Time) []time.Duration {
	out := make([]time.Duration, len(ts))
	for i, x := range ts {
		out[i] = x.Sub(start)
	}
	return out
}

// A live lease on the root makes the reconcile yield and reschedule, not
// run; it runs once the lease expires, or at once when it is released.
func TestReconcileYieldsToALiveLeaseAndReschedules(t *testing.T) {
	s := newSim(t, Options{})
	root := newRepo(t, "a")
	log := &ingestLog{}
	var runs []time.Time
	rec := func(context.Context, ReconcileRun) error { runs = append(runs, s.clk.Now()); return nil }
	s.watchRoot(root, Handlers{Ingest: log.ingest, Reconcile: rec}, Spec{})
	ctx := context.Background()
	if _, err := s.m.AcquireLease(ctx, root, 2*time.Minute); err != nil {
		t.Fatal(err)
	}
	if _, err := s.m.AcquireLease(ctx, root, time.Minute); !errors.Is(err, ErrLeaseHeld) {
		t.Fatalf("second acquire: %v", err)
	}
	start := s.clk.Now()
	writeFile(t, root, "b", "x")
	s.detect(root)
	s.advance(50 * time.Second)
	if len(runs) != 0 {
		t.Fatal("reconciled under a live lease")
	}
	if n := s.count(Key(KindReconcile, root), "yield"); n != 1 {
		t.Fatalf("%d yields", n)
	}
	at, ok := s.pending(Key(KindReconcile, root))
	if !ok || at.Sub(start) != 2*time.Minute {
		t.Fatalf("reconcile rescheduled at %v (pending %v), want at the lease's expiry 2m", at.Sub(start), ok)
	}
	st := s.status(root)
	if !strings.Contains(st.LastReconcileResult, "yielded") {
		t.Fatalf("status: %q", st.LastReconcileResult)
	}
	// The time shown beside the yield is the yield's own, not an older run's.
	if st.LastReconcile == nil || !st.LastReconcile.After(start) || st.LastReconcile.After(start.Add(50*time.Second)) {
		t.Fatalf("last reconcile at %v beside %q, want the yield's time within 50s of %v", st.LastReconcile, st.LastReconcileResult, start)
	}
	s.advance(2 * time.Minute)
	if len(runs) != 1 || runs[0].Sub(start) != 2*time.Minute {
		t.Fatalf("runs %v", offsets(runs, start))
	}
	// Released early: the yielded reconcile runs at once.
	if _, err := s.m.AcquireLease(ctx, filepath.Dir(root), time.Hour); err != nil { // a directory above covers it
		t.Fatal(err)
	}
	writeFile(t, root, "c", "x")
	s.detect(root)
	s.advance(time.Minute)
	if len(runs) != 1 {
		t.Fatal("reconciled under a lease on the parent directory")
	}
	released, err := s.m.ReleaseLease(ctx, filepath.Dir(root))
	if err != nil || !released {
		t.Fatal(released, err)
	}
	s.advance(0)
	if len(runs) != 2 {
		t.Fatalf("%d runs after the release", len(runs))
	}
}

// A root marked candidate is skipped by the reconcile (done, not run).
func TestReconcileSkipsACandidateRoot(t *testing.T) {
	s := newSim(t, Options{})
	root := newRepo(t, "a")
	log := &ingestLog{}
	runs := 0
	rec := func(context.Context, ReconcileRun) error { runs++; return nil }
	yes := true
	s.watchRoot(root, Handlers{Ingest: log.ingest, Reconcile: rec}, Spec{Candidate: &yes})
	writeFile(t, root, "b", "x")
	s.detect(root)
	s.advance(time.Hour)
	if runs != 0 || s.count(Key(KindReconcile, root), "done") != 1 {
		t.Fatalf("runs %d, firings %v", runs, s.log)
	}
	if len(log.paths()) != 1 {
		t.Fatal("a candidate root still ingests")
	}
	if st := s.status(root); !strings.Contains(st.LastReconcileResult, "candidate") {
		t.Fatalf("status: %q", st.LastReconcileResult)
	}
}

// A reconcile that conflicts gets exactly one retry, with a fresh store
// version, then the alert auto_reconcile_conflict: never a loop. The same
// through a real command's exit code 75.
func TestConflictGetsOneRetryThenAnAlertNeverALoop(t *testing.T) {
	for _, viaCommand := range []bool{false, true} {
		t.Run(fmt.Sprintf("command=%v", viaCommand), func(t *testing.T) {
			s := newSim(t, Options{})
			root := newRepo(t, "a")
			log := &ingestLog{}
			var mu sync.Mutex
			var versions []uint64
			h := Handlers{Ingest: log.ingest}
			spec := Spec{}
			out := filepath.Join(t.TempDir(), "versions")
			if viaCommand {
				cmd := fmt.Sprintf(`echo "$WAKEWHEEL_STORE_VERSION" >> '%s'; exit 75`, out)
				spec.Reconcile = &cmd
			} else {
				h.Reconcile = func(_ context.Context, r ReconcileRun) error {
					mu.Lock()
					versions = append(versions, r.StoreVersion)
					mu.Unlock()
					return fmt.Errorf("store moved: %w", ErrConflict)
				}
			}
			s.watchRoot(root, h, spec)
			writeFile(t, root, "b", "x")
			s.detect(root)
			s.advance(time.Hour)
			if viaCommand {
				b, _ := os.ReadFile(out)
				for _, f := range strings.Fields(string(b)) {
					var v uint64
					fmt.Sscan(f, &v)
					versions = append(versions, v)
				}
			}
			if len(versions) != 2 || versions[1] <= versions[0] {
				t.Fatalf("reconcile ran with versions %v, want two runs with a fresh version", versions)
			}
			var codes []string
			for _, a := range s.alerts() {
				codes = append(codes, a.Code)
			}
			if !slices.Equal(codes, []string{AlertReconcileConflict}) {
				t.Fatalf("alerts %q", codes)
			}
			if n := s.count(Key(KindReconcile, root), "conflict"); n != 1 {
				t.Fatalf("%d conflict outcomes; log %v", n, s.log)
			}
			if _, ok := s.pending(Key(KindReconcile, root)); ok {
				t.Fatal("reconcile still pending: a loop")
			}
		})
	}
}

// An armed root survives a restart: disarmed-by-default is not applied to
// it, the daemon does not scan before serving (status says resuming, not
// notify), and its first detection re-arms the watcher and sees changes
// made while it was down. A run interrupted by the crash never wedges the
// resume: its batch is ingested again.
func TestArmedRootResumesAcrossRestartAndDetectsAgain(t *testing.T) {
	s := newSim(t, Options{})
	root := newRepo(t, "a")
	log := &ingestLog{}
	var once sync.Once
	h := Handlers{Ingest: func(ctx context.Context, b Batch) error {
		if slices.Contains(b.Paths, "stuck") {
			once.Do(func() { <-ctx.Done() }) // interrupted by the crash
			if ctx.Err() != nil {
				return ctx.Err()
			}
		}
		return log.ingest(ctx, b)
	}}
	s.watchRoot(root, h, Spec{})
	writeFile(t, root, "stuck", "x")
	s.m.apply(context.Background(), pushNow(KindDetect, root))
	s.runNoWait() // the detection, then the drain that starts the batch, which blocks
	if !s.busy() {
		t.Fatal("the batch is not running")
	}
	s.crash()
	writeFile(t, root, "while-down", "x")
	s.clk.Advance(time.Hour)
	s.restart()
	if err := s.m.SetHandlers(root, h); err != nil {
		t.Fatal(err)
	}
	st := s.status(root)
	if !st.Armed || st.Mode != ModeResuming || st.Backlog != 1 {
		t.Fatalf("after restart: %+v", st)
	}
	s.advance(s.opts.withDefaults().ResumeDelay)
	if got := log.set(); got["stuck"] != 1 || got["while-down"] != 1 {
		t.Fatalf("ingested %v after the restart", got)
	}
	if st := s.status(root); st.Mode != ModeNotify {
		t.Fatalf("watcher not re-armed: %+v", st)
	}
	writeFile(t, root, "after", "x")
	s.waitEvents(root)
	s.advance(10 * time.Second)
	if log.set()["after"] != 1 {
		t.Fatalf("not detecting after the resume: %v", log.set())
	}
}

// Re-registering a root, as an agent's watch call does (path and skip
// only), never demotes it: it stays armed and keeps the operator's commands.
func TestWatchAgainNeverDemotesARoot(t *testing.T) {
	s := newSim(t, Options{})
	root := newRepo(t, "a")
	ingest, reconcile := "cat > /dev/null", "true"
	st, err := s.m.Watch(context.Background(), Spec{Path: root, Ingest: &ingest, Reconcile: &reconcile, Arm: true})
	if err != nil || !st.Armed {
		t.Fatal(st, err)
	}
	st, err = s.m.Watch(context.Background(), Spec{Path: root, Skip: []string{"vendor"}})
	if err != nil {
		t.Fatal(err)
	}
	if !st.Armed || st.Ingest != ingest || st.Reconcile != reconcile || !slices.Equal(st.Skip, []string{"vendor"}) {
		t.Fatalf("demoted: %+v", st)
	}
	s.crash()
	s.restart()
	if st := s.status(root); !st.Armed || st.Ingest != ingest {
		t.Fatalf("after restart: %+v", st)
	}
}
