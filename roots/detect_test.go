package roots

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/wakewheel/wakewheel/scheduler"
)

// A changed set larger than one batch: the detection itself hands the
// first batch to ingest before it writes the rest, and that batch says
// how many paths wait behind it and the commit they belong to. The rest
// drains after it; every path once.
func TestLargeSetStartsItsFirstBatchBeforeTheRest(t *testing.T) {
	s := newSim(t, Options{DrainBudget: 4})
	root := newRepo(t, "README")
	batches := make(chan Batch, 16)
	s.watchRoot(root, Handlers{Ingest: func(_ context.Context, b Batch) error {
		batches <- b
		return nil
	}}, Spec{})
	for i := range 10 {
		writeFile(t, root, fmt.Sprintf("new/f%02d", i), "x")
	}
	git(t, root, "add", "-A")
	git(t, root, "commit", "-q", "--no-verify", "-m", "B")
	head := strings.TrimSpace(git(t, root, "rev-parse", "HEAD"))

	// The detection alone, no drain firing: its own batch starts.
	out := s.m.detectHandler(context.Background(), scheduler.Firing{
		Deadline: deadlineOf(Key(KindDetect, root), KindDetect), Now: s.clk.Now()})
	if out.Result != scheduler.Done {
		t.Fatalf("detection: %v %v", out.Result, out.Err)
	}
	var first Batch
	select {
	case first = <-batches:
	case <-time.After(30 * time.Second):
		t.Fatal("the detection started no batch of its own")
	}
	if len(first.Paths) != 4 || first.Backlog != 6 || first.SinceRef != head {
		t.Fatalf("first batch: %d paths, backlog %d, since ref %q (want 4, 6, %q)", len(first.Paths), first.Backlog, first.SinceRef, head)
	}

	s.advance(time.Minute) // the drain takes the rest
	got := map[string]int{}
	for _, p := range first.Paths {
		got[p]++
	}
	for len(batches) > 0 {
		for _, p := range (<-batches).Paths {
			got[p]++
		}
	}
	if len(got) != 10 {
		t.Fatalf("ingested %d distinct paths, want 10: %v", len(got), got)
	}
	for p, n := range got {
		if n != 1 {
			t.Fatalf("%s ingested %d times", p, n)
		}
	}
	if st := s.status(root); st.Backlog != 0 || st.Ingested != 10 {
		t.Fatalf("%+v", st)
	}
}
