package repair

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wakewheel/wakewheel/internal/importrules"
	ob "github.com/wakewheel/wakewheel/obligations"
	"github.com/wakewheel/wakewheel/store"
	"github.com/wakewheel/wakewheel/wakes"
)

var t0 = time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)

func TestImportRules(t *testing.T) {
	importrules.Check(t, ".", importrules.Rules{NoClock: true, Banned: []string{
		"github.com/wakewheel/wakewheel/cmd", "github.com/wakewheel/wakewheel/configs", "github.com/spf13/viper"}})
}

// TestLostRangeBecomesGapMarkers: a lane whose obligations 4..6 are gone
// (and whose cursor is gone, though the ledger knows it consumed 3) is
// rebuilt contiguous: the gap is filled with markers, the cursor raised,
// the loss reported and alerted, and the lane restores.
func TestLostRangeBecomesGapMarkers(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "store")
	db, err := store.Open(dir, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var ops []store.Op
	for seq := uint64(1); seq <= 10; seq++ {
		o := ob.Obligation{Lane: "dev", Seq: seq, ID: fmt.Sprintf("id%d", seq), Class: ob.ClassHuman, Body: "hello", Posted: t0}
		if seq < 4 || seq > 6 {
			ops = append(ops, record(ob.Record{Kind: ob.RecordObligation, Obligation: o}))
		}
		e := ob.Entry{Kind: ob.EntryPost, Lane: "dev", Seq: seq, ID: o.ID, At: t0}
		ops = append(ops, store.PutOp(wakes.LedgerNS, fmt.Sprintf("e/%020d", seq), must(t, e)))
	}
	ops = append(ops, store.PutOp(wakes.LedgerNS, "e/00000000000000000011",
		must(t, ob.Entry{Kind: ob.EntryConsumption, Lane: "dev", Seq: 3, ID: "id3", At: t0})))
	if err := db.Write(true, ops...); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}

	rep, err := Run(dir, t0.Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	rep.Print(&out)
	t.Log(out.String())
	if len(rep.Lanes) != 1 || rep.Lanes[0].Head != 10 || fmt.Sprint(rep.Lanes[0].Lost) != "[4..6]" || !rep.Lanes[0].CursorLost {
		t.Fatalf("lanes %+v", rep.Lanes)
	}
	for _, s := range []string{"dev: head 10, kept 7, lost 4..6", "copied to " + rep.Aside} {
		if !strings.Contains(out.String(), s) {
			t.Errorf("report lacks %q", s)
		}
	}

	db, err = store.Open(dir, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var recs []ob.Record
	if err := db.Scan(wakes.RecordNS, "", func(_ string, v []byte) error {
		r, err := ob.Decode(v)
		recs = append(recs, r)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	st, _, err := ob.Restore(ob.DefaultPolicies(), recs, t0.Add(2*time.Hour))
	if err != nil {
		t.Fatalf("the repaired lane does not restore: %v", err)
	}
	d, err := st.Digest("dev", "agent", t0.Add(2*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Alerts) != 1 || d.Alerts[0].Key != GapKey || d.Alerts[0].Count != 3 {
		t.Errorf("digest alerts %+v, want one gap group of 3", d.Alerts)
	}
	alerts, err := db.Alerts(0)
	if err != nil {
		t.Fatal(err)
	}
	if len(alerts) != 2 || alerts[0].Code != "store_repair_lost" || !strings.Contains(alerts[0].Message, "4..6") {
		t.Errorf("alerts %+v", alerts)
	}
}

func must(t *testing.T, e ob.Entry) []byte {
	t.Helper()
	b, err := json.Marshal(e)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestCompactedLaneIsNotALoss: a lane compacted up to 5 (a compaction
// record and tombstones, obligations 1..5 gone by design) whose cursor is
// gone is rebuilt without gap markers for the compacted range; its
// compaction record and tombstones are kept, and it restores.
func TestCompactedLaneIsNotALoss(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "store")
	db, err := store.Open(dir, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ops := []store.Op{record(ob.Record{Kind: ob.RecordCompaction, Compaction: ob.Compaction{Lane: "dev", Base: 5, At: t0, TombSince: t0}})}
	for seq := uint64(1); seq <= 8; seq++ {
		id := fmt.Sprintf("id%d", seq)
		if seq <= 5 {
			ops = append(ops, record(ob.Record{Kind: ob.RecordTombstone, Tombstone: ob.Tombstone{
				Lane: "dev", ID: id, Seq: seq, Class: ob.ClassHuman, Posted: t0, Compacted: t0}}))
			continue
		}
		ops = append(ops, record(ob.Record{Kind: ob.RecordObligation, Obligation: ob.Obligation{
			Lane: "dev", Seq: seq, ID: id, Class: ob.ClassHuman, Body: "hello", Posted: t0}}))
	}
	if err := db.Write(true, ops...); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	rep, err := Run(dir, t0.Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Lanes) != 1 || rep.Lanes[0].Head != 8 || len(rep.Lanes[0].Lost) != 0 {
		t.Fatalf("lanes %+v, want head 8 and nothing lost", rep.Lanes)
	}
	db, err = store.Open(dir, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var recs []ob.Record
	kinds := map[ob.RecordKind]int{}
	if err := db.Scan(wakes.RecordNS, "", func(_ string, v []byte) error {
		r, err := ob.Decode(v)
		recs = append(recs, r)
		kinds[r.Kind]++
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if kinds[ob.RecordTombstone] != 5 || kinds[ob.RecordCompaction] != 1 || kinds[ob.RecordObligation] != 3 {
		t.Fatalf("records by kind after repair: %v", kinds)
	}
	st, _, err := ob.Restore(ob.DefaultPolicies(), recs, t0.Add(2*time.Hour))
	if err != nil {
		t.Fatalf("the repaired compacted lane does not restore: %v", err)
	}
	if l, _ := st.Lane("dev"); l.Head != 8 || l.Consumed != 5 || l.Counts.Human != 3 {
		t.Fatalf("restored lane %+v, want head 8, consumed 5, 3 unconsumed", l)
	}
}

// A root's backlog record holds one or more NUL-separated paths: the
// repair report counts paths, not records.
func TestRepairCountsBacklogPaths(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "store")
	db, err := store.Open(dir, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Write(true,
		store.PutOp("rootq", "0000000000000001/0000000000000001", []byte("a.go\x00b.go\x00c d.txt")),
		store.PutOp("rootq", "0000000000000001/0000000000000004", []byte("one path"))); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	rep, err := Run(dir, t0)
	if err != nil {
		t.Fatal(err)
	}
	if n := rep.Kept["backlog paths"]; n != 4 {
		t.Fatalf("backlog paths kept %d, want 4 (two records)", n)
	}
}
