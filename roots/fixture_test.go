package roots

import (
	"flag"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/rs/zerolog"
	"github.com/wakewheel/wakewheel/scheduler"
	"github.com/wakewheel/wakewheel/store"
)

// The fixture is a store holding root records and backlogs as this
// version (record v1) writes them, plus a record of the shape written
// before roots had IDs. Later versions must keep loading it: that is the
// upgrade-safety test. Regenerate it only when adding a fixture version:
//
//	go test ./roots -run TestFixture -update-fixture
const fixtureDir = "testdata/fixture-v1"

var updateFixture = flag.Bool("update-fixture", false, "rewrite "+fixtureDir)

var (
	fxTime    = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	fxBacklog = []string{"a.go", "dir/b c.go", "new\nline.txt", "quote\"d'.md", "ünïcode/ファイル.txt"}
	fxRecords = []Record{
		{ID: 7, Path: "/src/armed-repo", Armed: true, Ingest: "indexer add --stdin0", Reconcile: "indexer reconcile",
			Skip: []string{"dist", "web/build"}, SinceRef: "0123456789abcdef0123456789abcdef01234567", Created: fxTime,
			StoreVersion: 12, LastDetection: fxTime.Add(time.Minute), Overflows: 2},
		{ID: 8, Path: "/src/quiet-dir", Candidate: true, Created: fxTime},
	}
)

func writeFixture(t *testing.T) {
	if err := os.RemoveAll(fixtureDir); err != nil {
		t.Fatal(err)
	}
	db, err := store.Open(fixtureDir, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var ops []store.Op
	for _, r := range fxRecords {
		ops = append(ops, store.PutOp(nsRoots, r.Path, encodeRecord(r)))
	}
	for i, p := range fxBacklog {
		ops = append(ops, store.PutOp(nsQueue, queueKey(7, uint64(10+i)), []byte(p)))
	}
	ops = append(ops, store.PutOp(nsRoots, "/src/legacy", []byte(`{"armed":true,"ingest":"old-indexer"}`)))
	if err := db.Write(true, ops...); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(fixtureDir, "LOG")) // goleveldb's log: dates and host details
	os.Remove(filepath.Join(fixtureDir, "LOCK"))
}

func TestFixtureV1StillLoadsAndStaysArmed(t *testing.T) {
	if *updateFixture {
		writeFixture(t)
	}
	dir := filepath.Join(t.TempDir(), "fixture")
	if err := os.CopyFS(dir, os.DirFS(fixtureDir)); err != nil {
		t.Fatalf("copy fixture: %v", err)
	}
	db, err := store.Open(dir, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	m, err := Open(db, Options{Logger: zerolog.Nop()})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()

	armed := m.roots["/src/armed-repo"]
	if armed == nil {
		t.Fatal("armed root lost")
	}
	want := fxRecords[0]
	want.V = recordVersion
	if !armed.rec.Armed || armed.rec.ID != 7 || armed.rec.SinceRef != want.SinceRef || armed.rec.StoreVersion != 12 ||
		armed.rec.Ingest != want.Ingest || !slices.Equal(armed.rec.Skip, want.Skip) || armed.rec.Overflows != 2 {
		t.Fatalf("armed root record %+v", armed.rec)
	}
	if !armed.skip.Skips("x/dist/y", false) || !armed.skip.Skips("web/build/z", false) {
		t.Fatal("skip policy not rebuilt")
	}
	var backlog []string
	for _, e := range armed.q.entries {
		backlog = append(backlog, e.path)
	}
	if !slices.Equal(backlog, fxBacklog) || armed.q.next != 15 {
		t.Fatalf("backlog %q next %d", backlog, armed.q.next)
	}
	quiet := m.roots["/src/quiet-dir"]
	if quiet == nil || quiet.rec.Armed || !quiet.rec.Candidate || quiet.q.Len() != 0 {
		t.Fatalf("quiet root %+v", quiet)
	}
	legacy := m.roots["/src/legacy"]
	if legacy == nil || !legacy.rec.Armed || legacy.rec.Ingest != "old-indexer" || legacy.rec.ID < 9 {
		t.Fatalf("legacy root %+v", legacy)
	}

	// Resume derives the deadlines: detections for the armed roots, a
	// drain for the non-empty backlog, nothing for the disarmed root.
	eng, err := scheduler.NewEngine(db, scheduler.Options{Logger: zerolog.Nop()}, fxTime)
	if err != nil {
		t.Fatal(err)
	}
	m.Register(eng)
	if err := m.Resume(eng, fxTime); err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, d := range eng.Pending() {
		keys = append(keys, d.Key)
	}
	wantKeys := []string{"detect/src/armed-repo", "detect/src/legacy", "drain/src/armed-repo"}
	slices.Sort(keys)
	if !slices.Equal(keys, wantKeys) {
		t.Fatalf("deadlines %q, want %q", keys, wantKeys)
	}
}
