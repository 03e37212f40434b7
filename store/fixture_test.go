package store

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/syndtr/goleveldb/leveldb/util"

	wakewheel "github.com/wakewheel/wakewheel"
	"github.com/wakewheel/wakewheel/deadlines"
)

// The fixture is a store written by schema version 1. Later versions must
// keep loading it unchanged: that is the upgrade-safety test. Regenerate it
// only when adding a new fixture version, never to make this test pass:
//
//	go test ./store -run TestFixture -update-fixture
const fixtureDir = "testdata/fixture-v1"

var (
	fx0 = time.Date(2026, 1, 2, 3, 4, 5, 600000007, time.UTC)

	fixtureDeadlines = []deadlines.Deadline{
		{Key: "burst/home/dev/repo", Kind: "burst", At: fx0.Add(500 * time.Millisecond), Since: fx0},
		{Key: "reconcile/home/dev/repo", Kind: "reconcile", At: fx0.Add(45 * time.Second), Since: fx0.Add(-time.Minute)},
		{Key: "lease/index", Kind: "lease", At: fx0.Add(time.Hour), Payload: []byte(`{"holder":"alice"}`)},
		{Key: "absent/host-1", Kind: "absent", At: fx0.Add(1)},
		{Key: "redeliver/lane/human", Kind: "redeliver", At: fx0.Add(2 * time.Minute), Payload: []byte{0, 1, 2}},
	}
	fixtureFires = []wakewheel.Fire{
		{Key: "burst/home/dev/repo", Kind: "burst", At: fx0, Fired: fx0.Add(3 * time.Millisecond), Outcome: "done"},
		{Key: "reconcile/home/dev/repo", Kind: "reconcile", At: fx0.Add(time.Second), Fired: fx0.Add(2 * time.Second), Outcome: "conflict"},
		{Key: "lease/index", Kind: "lease", At: fx0.Add(time.Hour), Fired: fx0.Add(time.Hour), Outcome: "yield"},
	}
	fixtureAlerts = []wakewheel.Alert{
		{Time: fx0, Code: "action_failed", Key: "burst/home/dev/repo", Kind: "burst", Message: "ingest exited 1"},
		{Time: fx0.Add(time.Minute), Code: "auto_reconcile_conflict", Key: "reconcile/home/dev/repo", Kind: "reconcile", Message: "conflict after retry"},
	}
	fixtureRecords = []Op{
		PutOp("roots", "/home/dev/repo", []byte(`{"armed":true}`)),
		PutOp("backlog", "/home/dev/repo/00000001", []byte("a.go")),
		PutOp("backlog", "/home/dev/repo/00000002", []byte("dir/b c.go")),
		PutOp("cursors", "lane-a", []byte("42")),
	}
)

func writeFixture(t *testing.T) {
	if err := os.RemoveAll(fixtureDir); err != nil {
		t.Fatal(err)
	}
	db, err := Open(fixtureDir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range fixtureFires {
		if _, err := db.Complete(f.Key, true, f); err != nil {
			t.Fatal(err)
		}
	}
	for _, a := range fixtureAlerts {
		if _, err := db.AddAlert(a); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.Write(true, fixtureRecords...); err != nil {
		t.Fatal(err)
	}
	last := len(fixtureDeadlines) - 1
	for _, d := range fixtureDeadlines[:last] {
		db.PutDeadline(d)
	}
	if err := db.Flush(); err != nil {
		t.Fatal(err)
	}
	// Move everything so far into a table file; the last deadline stays in
	// the journal, so both read paths are covered.
	if err := db.ldb.CompactRange(util.Range{}); err != nil {
		t.Fatal(err)
	}
	if err := db.PutDeadlineSync(fixtureDeadlines[last]); err != nil {
		t.Fatal(err)
	}
	mustClose(t, db)
	// LOG names machine paths and times; LOCK is recreated on open.
	for _, name := range []string{"LOG", "LOG.old", "LOCK"} {
		if err := os.Remove(filepath.Join(fixtureDir, name)); err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
	}
}

func TestFixtureV1Loads(t *testing.T) {
	if *updateFixture {
		writeFixture(t)
	}
	dir := filepath.Join(t.TempDir(), "fixture")
	if err := os.CopyFS(dir, os.DirFS(fixtureDir)); err != nil {
		t.Fatalf("copy fixture: %v", err)
	}
	db := mustOpen(t, func(o Options) (*DB, error) { return Open(dir, o) }, Options{})

	wantDeadlines(t, db, fixtureDeadlines...)

	fires, err := db.Fires(0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(fires) != len(fixtureFires) {
		t.Fatalf("%d fires, want %d", len(fires), len(fixtureFires))
	}
	for i, f := range fires {
		w := fixtureFires[i]
		w.Seq = uint64(i + 1)
		if f.Seq != w.Seq || f.Key != w.Key || f.Kind != w.Kind || !f.At.Equal(w.At) || !f.Fired.Equal(w.Fired) || f.Outcome != w.Outcome {
			t.Errorf("fire %d = %+v, want %+v", i, f, w)
		}
	}

	alerts, err := db.Alerts(0)
	if err != nil {
		t.Fatal(err)
	}
	if len(alerts) != len(fixtureAlerts) {
		t.Fatalf("%d alerts, want %d", len(alerts), len(fixtureAlerts))
	}
	for i, a := range alerts {
		w := fixtureAlerts[i]
		w.Seq = uint64(i + 1)
		if a.Seq != w.Seq || !a.Time.Equal(w.Time) || a.Code != w.Code || a.Key != w.Key || a.Kind != w.Kind || a.Message != w.Message {
			t.Errorf("alert %d = %+v, want %+v", i, a, w)
		}
	}

	for _, op := range fixtureRecords {
		if v, ok := mustGet(t, db, op.NS, op.Key); !ok || v != string(op.Value) {
			t.Errorf("record %s/%s = %q, %v; want %q", op.NS, op.Key, v, ok, op.Value)
		}
	}
	var backlog []string
	if err := db.Scan("backlog", "/home/dev/repo/", func(k string, v []byte) error {
		backlog = append(backlog, string(v))
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if want := []string{"a.go", "dir/b c.go"}; !slices.Equal(backlog, want) {
		t.Errorf("backlog scan = %v, want %v", backlog, want)
	}

	// The sequences continue after the fixture's.
	if f, err := db.Complete("x", true, wakewheel.Fire{}); err != nil || f.Seq != uint64(len(fixtureFires)+1) {
		t.Errorf("next fire seq = %d, %v", f.Seq, err)
	}
}
