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
