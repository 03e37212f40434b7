package store

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/syndtr/goleveldb/leveldb/storage"

	wakewheel "github.com/wakewheel/wakewheel"
	"github.com/wakewheel/wakewheel/deadlines"
)

// TestConformance runs the one conformance suite against every backing.
func TestConformance(t *testing.T) {
	t.Run("disk", func(t *testing.T) {
		runConformance(t, func(t *testing.T) opener {
			dir := filepath.Join(t.TempDir(), "store")
			return func(o Options) (*DB, error) { return Open(dir, o) }
		})
	})
	t.Run("mem", func(t *testing.T) {
		runConformance(t, func(t *testing.T) opener {
			s := storage.NewMemStorage()
			return func(o Options) (*DB, error) { return OpenStorage(s, o) }
		})
	})
}

var t0 = time.Date(2026, 3, 1, 12, 0, 0, 123456789, time.UTC)

func dl(key string, at time.Duration) deadlines.Deadline {
	return deadlines.Deadline{Key: key, Kind: "burst", At: t0.Add(at)}
}

// manual never flushes on its own within a test.
var manual = Options{FlushInterval: time.Hour}

func runConformance(t *testing.T, newStore func(t *testing.T) opener) {
	cases := []struct {
		name string
		fn   func(t *testing.T, open opener)
	}{
		{"records", testRecords},
		{"write-behind coalesces", testCoalesce},
		{"write-behind ordering", testOrdering},
		{"ordering against the flusher", testOrderingRace},
		{"sync path", testSyncPath},
		{"complete", testComplete},
		{"complete in one batch", testCompleteAll},
		{"fires and alerts capped", testCaps},
		{"reopen after close", testReopenAfterClose},
		{"reopen after abandon", testReopenAfterAbandon},
		{"deadline fields round-trip", testRoundTrip},
		{"closed", testClosed},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { c.fn(t, newStore(t)) })
	}
}

func testRecords(t *testing.T, open opener) {
	db := mustOpen(t, open, manual)
	for i, sync := range []bool{false, true} {
		ns := fmt.Sprint("ns", i)
		if err := db.Put(ns, "a/1", []byte("one"), sync); err != nil {
			t.Fatal(err)
		}
		if err := db.Write(sync, PutOp(ns, "a/2", []byte("two")), PutOp(ns, "b", nil), PutOp(ns+"x", "a/3", []byte("other ns"))); err != nil {
			t.Fatal(err)
		}
		if v, ok := mustGet(t, db, ns, "a/1"); !ok || v != "one" {
			t.Errorf("Get a/1 = %q, %v", v, ok)
		}
		if _, ok := mustGet(t, db, ns, "missing"); ok {
			t.Error("Get of a missing key reports it present")
		}
		var keys []string
		if err := db.Scan(ns, "a/", func(k string, v []byte) error {
			keys = append(keys, k+"="+string(v))
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		if want := []string{"a/1=one", "a/2=two"}; !slices.Equal(keys, want) {
			t.Errorf("Scan = %v, want %v", keys, want)
		}
		if err := db.Write(sync, DeleteOp(ns, "a/1"), PutOp(ns, "a/2", []byte("2"))); err != nil {
			t.Fatal(err)
		}
		if err := db.Delete(ns, "b", sync); err != nil {
			t.Fatal(err)
		}
		if _, ok := mustGet(t, db, ns, "a/1"); ok {
			t.Error("a/1 survived its delete")
		}
		if v, _ := mustGet(t, db, ns, "a/2"); v != "2" {
			t.Errorf("a/2 = %q after batch, want 2", v)
		}
	}
	stop := errors.New("stop")
	if err := db.Scan("ns0x", "", func(string, []byte) error { return stop }); err != stop {
		t.Errorf("Scan returned %v, want the callback's error", err)
	}
	for _, ns := range []string{"", "a/b"} {
		if err := db.Put(ns, "k", nil, false); err == nil {
			t.Errorf("Put accepted namespace %q", ns)
		}
	}
}

func testComplete(t *testing.T, open opener) {
	db := mustOpen(t, open, manual)
	if err := db.PutDeadlineSync(dl("a", 1)); err != nil {
		t.Fatal(err)
	}
	if err := db.PutDeadlineSync(dl("b", 2)); err != nil {
		t.Fatal(err)
	}
	f1, err := db.Complete("a", false, wakewheel.Fire{Key: "a", Kind: "burst", At: t0, Fired: t0.Add(time.Millisecond), Outcome: "done"})
	if err != nil {
		t.Fatal(err)
	}
	f2, err := db.Complete("b", true, wakewheel.Fire{Key: "b", Outcome: "retry"})
	if err != nil {
		t.Fatal(err)
	}
	if f1.Seq != 1 || f2.Seq != 2 {
		t.Errorf("fire seqs %d, %d; want 1, 2", f1.Seq, f2.Seq)
	}
	if err := db.Abandon(); err != nil {
		t.Fatal(err)
	}
	db = mustOpen(t, open, manual)
	wantDeadlines(t, db, dl("b", 2))
	fires, err := db.Fires(0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(fires) != 2 || fires[0].Key != "a" || !fires[0].At.Equal(t0) || fires[0].Outcome != "done" || fires[1].Seq != 2 {
		t.Errorf("Fires = %+v", fires)
	}
}

// A batch of records is written as the same records one at a time would
// be: in order, each its Seq, the history trimmed to its cap across the
// batch, each retired deadline gone with its written-behind change, each
// kept one still there.
func testCompleteAll(t *testing.T, open opener) {
	db := mustOpen(t, open, Options{FlushInterval: time.Hour, FireCap: 3})
	for _, k := range []string{"a", "b", "c"} {
		if err := db.PutDeadlineSync(dl(k, 1)); err != nil {
			t.Fatal(err)
		}
	}
	db.PutDeadline(dl("d", 2)) // written behind, not yet flushed
	done := []wakewheel.Finished{
		{Key: "a", Fire: wakewheel.Fire{Key: "a", Outcome: "done"}},
		{Key: "b", Keep: true, Fire: wakewheel.Fire{Key: "b", Outcome: "retry"}},
		{Key: "c", Fire: wakewheel.Fire{Key: "c", Outcome: "done"}},
		{Key: "d", Fire: wakewheel.Fire{Key: "d", Outcome: "done"}},
		{Key: "b", Fire: wakewheel.Fire{Key: "b", Outcome: "done"}},
	}
	if err := db.CompleteAll(done); err != nil {
		t.Fatal(err)
	}
	for i, d := range done {
		if d.Fire.Seq != uint64(i+1) {
			t.Errorf("record %d (%s): seq %d, want %d", i, d.Key, d.Fire.Seq, i+1)
		}
	}
	if err := db.CompleteAll(nil); err != nil {
		t.Fatalf("an empty batch: %v", err)
	}
	if err := db.Flush(); err != nil { // d's dropped change must not come back
		t.Fatal(err)
	}
	if err := db.Abandon(); err != nil {
		t.Fatal(err)
	}
	db = mustOpen(t, open, Options{FlushInterval: time.Hour, FireCap: 3})
	wantDeadlines(t, db)
	fires, err := db.Fires(0, 0)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range fires {
		got = append(got, fmt.Sprint(f.Seq, f.Key, f.Outcome))
	}
	if want := []string{"3cdone", "4ddone", "5bdone"}; !slices.Equal(got, want) {
		t.Errorf("fires after the batch %v, want %v (the last 3, in order)", got, want)
	}
	if f, err := db.Complete("e", true, wakewheel.Fire{Key: "e"}); err != nil || f.Seq != 6 {
		t.Errorf("the next record after the batch: seq %d, %v; want 6", f.Seq, err)
	}
}

func testCaps(t *testing.T, open opener) {
	db := mustOpen(t, open, Options{FlushInterval: time.Hour, FireCap: 5, AlertCap: 3})
	if alerts, err := db.Alerts(1); err != nil || len(alerts) != 0 {
		t.Fatalf("Alerts of an empty log: %v, %v", alerts, err)
	}
	for i := range 8 {
		if _, err := db.Complete("k", true, wakewheel.Fire{Key: fmt.Sprint("k", i)}); err != nil {
			t.Fatal(err)
		}
		if _, err := db.AddAlert(wakewheel.Alert{Code: "action_failed", Message: fmt.Sprint(i)}); err != nil {
			t.Fatal(err)
		}
	}
	checkSeqs := func(what string, got []uint64, want ...uint64) {
		t.Helper()
		if !slices.Equal(got, want) {
			t.Errorf("%s: seqs %v, want %v", what, got, want)
		}
	}
	fireSeqs := func(after uint64, limit int) []uint64 {
		fires, err := db.Fires(after, limit)
		if err != nil {
			t.Fatal(err)
		}
		var s []uint64
		for _, f := range fires {
			s = append(s, f.Seq)
		}
		return s
	}
	alertSeqs := func(limit int) []uint64 {
		alerts, err := db.Alerts(limit)
		if err != nil {
			t.Fatal(err)
		}
		var s []uint64
		for _, a := range alerts {
			s = append(s, a.Seq)
		}
		return s
	}
	checkSeqs("Fires(0, all)", fireSeqs(0, 0), 4, 5, 6, 7, 8)
	checkSeqs("Fires(5, 2)", fireSeqs(5, 2), 6, 7)
	checkSeqs("Fires(8, all)", fireSeqs(8, 0))
	checkSeqs("Alerts(all)", alertSeqs(0), 6, 7, 8)
	checkSeqs("Alerts(2)", alertSeqs(2), 7, 8)

	mustClose(t, db)
	db = mustOpen(t, open, Options{FlushInterval: time.Hour, FireCap: 2, AlertCap: 3})
	checkSeqs("Alerts(1) after reopen", alertSeqs(1), 8)
	if f, err := db.Complete("k", true, wakewheel.Fire{}); err != nil || f.Seq != 9 {
		t.Fatalf("Complete after reopen: seq %d, %v; want 9", f.Seq, err)
	}
	checkSeqs("Fires after a smaller cap", fireSeqs(0, 0), 8, 9)
	if a, err := db.AddAlert(wakewheel.Alert{}); err != nil || a.Seq != 9 {
		t.Fatalf("AddAlert after reopen: seq %d, %v; want 9", a.Seq, err)
	}
	checkSeqs("Alerts after reopen", alertSeqs(0), 7, 8, 9)
}

func testClosed(t *testing.T, open opener) {
	db := mustOpen(t, open, manual)
	mustClose(t, db)
	if err := db.Close(); !errors.Is(err, ErrClosed) {
		t.Errorf("second Close = %v, want ErrClosed", err)
	}
	db.PutDeadline(dl("k", 1)) // a no-op, not a panic
	db.DeleteDeadline("k")
	for name, err := range map[string]error{
		"Flush":           db.Flush(),
		"PutDeadlineSync": db.PutDeadlineSync(dl("k", 1)),
		"Put":             db.Put("ns", "k", nil, true),
		"LoadDeadlines":   db.LoadDeadlines(func(deadlines.Deadline) error { return nil }),
	} {
		if !errors.Is(err, ErrClosed) {
			t.Errorf("%s after Close = %v, want ErrClosed", name, err)
		}
	}
	if _, err := db.Complete("k", false, wakewheel.Fire{}); !errors.Is(err, ErrClosed) {
		t.Errorf("Complete after Close = %v, want ErrClosed", err)
	}
}
