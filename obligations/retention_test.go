package obligations_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/wakewheel/wakewheel/deadlines"
	ob "github.com/wakewheel/wakewheel/obligations"
)

func compactAt(t *testing.T, eff ob.Effects) (time.Time, bool) {
	t.Helper()
	var at time.Time
	armed := false
	for _, m := range eff.Deadlines {
		if m.Key != ob.CompactKey {
			continue
		}
		armed = m.Op != deadlines.OpCancel
		at = m.At
	}
	return at, armed
}

// Retention, with time as a value: an ack arms the compaction at its
// retention's end; Compact before then drops nothing, at it drops what the
// ack consumed and leaves tombstones; a re-post of a compacted id is
// absorbed until the horizon; past it Compact asks for a sweep, and Swept
// with nothing left cancels the deadline. A restore keeps the base.
func TestRetentionCompactsConsumedAndAbsorbsTheirIDs(t *testing.T) {
	const keep, horizon = time.Hour, 24 * time.Hour
	s := newState(t)
	if _, err := s.SetRetention(ob.Retention{Keep: keep, DedupHorizon: horizon}, t0); err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= 10; i++ {
		mustPost(t, s, human("dev", fmt.Sprint("id", i), "body"), t0)
	}
	mustDeliver(t, s, "dev", t0)
	eff, err := s.Ack("dev", 6, "", t0)
	if err != nil {
		t.Fatal(err)
	}
	if at, ok := compactAt(t, eff); !ok || !at.Equal(t0.Add(keep)) {
		t.Fatalf("the ack armed compaction at %v (%v), want %v", at, ok, t0.Add(keep))
	}

	if eff := s.Compact(t0.Add(keep - time.Nanosecond)); len(eff.Deletes) != 0 {
		t.Fatalf("compaction before the retention ended deleted %v", eff.Deletes)
	}
	eff = s.Compact(t0.Add(keep))
	tombs := 0
	for _, r := range eff.Records {
		if r.Kind == ob.RecordTombstone {
			tombs++
		}
	}
	if len(eff.Deletes) != 6 || tombs != 6 || !eff.Sync {
		t.Fatalf("compaction at the retention's end: %d deletes, %d tombstones, sync %v; want 6, 6, true", len(eff.Deletes), tombs, eff.Sync)
	}
	if at, ok := compactAt(t, eff); !ok || !at.Equal(t0.Add(keep+horizon)) {
		t.Fatalf("re-armed at %v (%v), want the horizon %v", at, ok, t0.Add(keep+horizon))
	}
	if _, ok := s.Get("dev", 6); ok {
		t.Fatal("obligation 6 is still held")
	}
	if o, ok := s.Get("dev", 7); !ok || o.Body != "body" {
		t.Fatal("obligation 7 (not consumed) was compacted")
	}
	if !s.NeedsTombstone("dev", "id3") || s.NeedsTombstone("dev", "id7") {
		t.Fatal("NeedsTombstone: want true for a compacted id, false for a live one")
	}
	// The latest compaction's tombstones answer before the store has them.
	if o, dup := s.Absorb("dev", "id3", nil, t0.Add(keep)); !dup || o.Seq != 3 || !o.Compacted {
		t.Fatalf("Absorb of a just-compacted id = %+v, %v", o, dup)
	}
	tomb := ob.Tombstone{Lane: "dev", ID: "id3", Seq: 3, Class: ob.ClassHuman, Posted: t0, Compacted: t0.Add(keep)}
	if _, dup := s.Absorb("dev", "id3", &tomb, t0.Add(keep+horizon)); dup {
		t.Fatal("a tombstone past the horizon still absorbs")
	}

	// A restore from the records keeps the base and the unconsumed.
	r, _, err := ob.Restore(ob.DefaultPolicies(), roundTrip(t, s.Records(t0.Add(keep))), t0.Add(keep))
	if err != nil {
		t.Fatal(err)
	}
	if l, _ := r.Lane("dev"); l.Head != 10 || l.Consumed != 6 || l.Counts.Human != 4 {
		t.Fatalf("restored lane %+v", l)
	}

	eff = s.Compact(t0.Add(keep + horizon))
	if len(eff.Sweeps) != 1 || eff.Sweeps[0].Lane != "dev" || !eff.Sweeps[0].Before.Equal(t0.Add(keep)) {
		t.Fatalf("sweeps past the horizon: %+v", eff.Sweeps)
	}
	eff, err = s.Swept("dev", time.Time{}, t0.Add(keep+horizon))
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := compactAt(t, eff); ok {
		t.Fatal("with nothing left to compact or sweep the deadline stays armed")
	}
}

// One Compact drops at most CompactBatch obligations and re-arms at once.
func TestCompactIsBounded(t *testing.T) {
	s := newState(t)
	if _, err := s.SetRetention(ob.Retention{Keep: time.Second, DedupHorizon: time.Hour}, t0); err != nil {
		t.Fatal(err)
	}
	n := ob.CompactBatch + 10
	for i := range n {
		mustPost(t, s, human("dev", fmt.Sprint("id", i), "b"), t0)
	}
	mustDeliver(t, s, "dev", t0)
	if _, err := s.Ack("dev", uint64(n), "", t0); err != nil {
		t.Fatal(err)
	}
	now := t0.Add(time.Second)
	eff := s.Compact(now)
	if at, ok := compactAt(t, eff); len(eff.Deletes) != ob.CompactBatch || !ok || !at.Equal(now) {
		t.Fatalf("first step: %d deletes, re-armed at %v (%v); want %d and now", len(eff.Deletes), at, ok, ob.CompactBatch)
	}
	if eff := s.Compact(now); len(eff.Deletes) != 10 {
		t.Fatalf("second step: %d deletes, want 10", len(eff.Deletes))
	}
}
