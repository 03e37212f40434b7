package roots

import (
	"context"
	"fmt"
	"testing"
	"time"
)

// A root's own windows replace the defaults for that root alone: its quiet
// window and its drain budget, while another root keeps the defaults.
func TestPerRootWindowsOverrideTheDefaults(t *testing.T) {
	s := newSim(t, Options{})
	tuned, plain := newRepo(t, "a"), newRepo(t, "a")
	var tunedRuns, plainRuns []time.Time
	tunedLog, plainLog := &ingestLog{}, &ingestLog{}
	s.watchRoot(tuned, Handlers{Ingest: tunedLog.ingest, Reconcile: func(context.Context, ReconcileRun) error {
		tunedRuns = append(tunedRuns, s.clk.Now())
		return nil
	}}, Spec{Windows: &Windows{ReconcileQuiet: 10 * time.Second, DrainBudget: 5}})
	s.watchRoot(plain, Handlers{Ingest: plainLog.ingest, Reconcile: func(context.Context, ReconcileRun) error {
		plainRuns = append(plainRuns, s.clk.Now())
		return nil
	}}, Spec{})
	if w := s.status(tuned).Windows; w.ReconcileQuiet != 10*time.Second || w.DrainBudget != 5 || w.BurstSilence != 500*time.Millisecond {
		t.Fatalf("tuned root's effective windows: %+v", w)
	}
	start := s.clk.Now()
	for i := range 12 {
		writeFile(t, tuned, fmt.Sprintf("t%d", i), "x")
		writeFile(t, plain, fmt.Sprintf("p%d", i), "x")
	}
	s.detect(tuned)
	s.detect(plain)
	s.advance(20 * time.Second)
	if len(tunedRuns) != 1 || len(plainRuns) != 0 {
		t.Fatalf("after 20 s: tuned reconciled %v, plain %v; want the tuned one only (10 s quiet vs 45 s)",
			offsets(tunedRuns, start), offsets(plainRuns, start))
	}
	s.advance(40 * time.Second)
	if len(plainRuns) != 1 {
		t.Fatalf("plain root reconciled %v, want once after its 45 s quiet", offsets(plainRuns, start))
	}
	for _, b := range tunedLog.batches {
		if len(b) > 5 {
			t.Fatalf("a batch of %d paths on a root whose drain budget is 5", len(b))
		}
	}
	if len(tunedLog.paths()) != 12 || len(plainLog.paths()) != 12 {
		t.Fatalf("ingested %d and %d paths, want 12 each", len(tunedLog.paths()), len(plainLog.paths()))
	}
}

// The roots' timetable claims burst/<root> and reconcile/<root>, timed by
// the root's own windows over the defaults, and nothing else.
func TestTimetableUsesEachRootsOwnWindows(t *testing.T) {
	tt := Timetable(Options{BurstSilence: time.Second, BurstCap: 10 * time.Second},
		map[string]Windows{"/src/own": {BurstSilence: time.Minute, ReconcileCap: time.Hour}})
	for key, want := range map[string]struct {
		window, cap time.Duration
		ok          bool
	}{
		Key(KindBurst, "/src/own"):       {time.Minute, time.Minute, true}, // its cap is at least its own silence
		Key(KindBurst, "/src/plain"):     {time.Second, 10 * time.Second, true},
		Key(KindReconcile, "/src/own"):   {45 * time.Second, time.Hour, true},
		Key(KindReconcile, "/src/plain"): {45 * time.Second, 10 * time.Minute, true},
		Key(KindDetect, "/src/own"):      {0, 0, false},
		Key(KindDrain, "/src/own"):       {0, 0, false},
		LeaseKey("burst"):                {0, 0, false},
		"reminder/burst":                 {0, 0, false},
		"burstiness":                     {0, 0, false},
	} {
		got, ok := tt(key)
		if ok != want.ok || got.Window != want.window || got.Cap != want.cap {
			t.Errorf("%s: %+v %v, want window %s cap %s %v", key, got, ok, want.window, want.cap, want.ok)
		}
	}
}
