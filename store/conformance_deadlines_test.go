package store

import (
	"testing"
	"time"

	wakewheel "github.com/wakewheel/wakewheel"
	"github.com/wakewheel/wakewheel/deadlines"
)

// Deadline cases of the conformance suite (runConformance).

func testCoalesce(t *testing.T, open opener) {
	db := mustOpen(t, open, manual)
	before := db.Stats()
	for i := range 100 {
		db.PutDeadline(dl("burst/a", time.Duration(i)))
	}
	db.DeleteDeadline("burst/b")
	if got := db.Stats().Pending; got != 2 {
		t.Errorf("Pending = %d, want 2", got)
	}
	if err := db.Flush(); err != nil {
		t.Fatal(err)
	}
	after := db.Stats()
	if b, r := after.Batches-before.Batches, after.Records-before.Records; b != 1 || r != 2 {
		t.Errorf("101 write-behind changes cost %d batches, %d records; want 1, 2", b, r)
	}
	wantDeadlines(t, db, dl("burst/a", 99))
}

func testOrdering(t *testing.T, open opener) {
	db := mustOpen(t, open, manual)
	fire := wakewheel.Fire{Key: "k", Outcome: "done"}
	steps := []struct {
		name string
		run  func() error
		want []deadlines.Deadline
	}{
		{"put behind, then synced put", func() error {
			db.PutDeadline(dl("k", 1))
			return db.PutDeadlineSync(dl("k", 2))
		}, []deadlines.Deadline{dl("k", 2)}},
		{"synced put, then put behind", func() error {
			db.PutDeadline(dl("k", 3))
			return nil
		}, []deadlines.Deadline{dl("k", 3)}},
		{"put behind, then delete behind", func() error {
			db.PutDeadline(dl("k", 4))
			db.DeleteDeadline("k")
			return nil
		}, nil},
		{"delete behind, then put behind", func() error {
			db.DeleteDeadline("k")
			db.PutDeadline(dl("k", 5))
			return nil
		}, []deadlines.Deadline{dl("k", 5)}},
		{"put behind, then synced delete", func() error {
			db.PutDeadline(dl("k", 6))
			return db.DeleteDeadlineSync("k")
		}, nil},
		{"put behind, then complete", func() error {
			db.PutDeadline(dl("k", 7))
			_, err := db.Complete("k", false, fire)
			return err
		}, nil},
		{"put behind, then complete keeping it", func() error {
			db.PutDeadline(dl("k", 8))
			_, err := db.Complete("k", true, fire)
			return err
		}, []deadlines.Deadline{dl("k", 8)}},
	}
	for _, s := range steps {
		if err := s.run(); err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		if err := db.Flush(); err != nil {
			t.Fatal(err)
		}
		t.Run(s.name, func(t *testing.T) { wantDeadlines(t, db, s.want...) })
	}
}

// testOrderingRace lets the flusher run every millisecond while synced
// writes and Complete supersede pending changes of the same key.
func testOrderingRace(t *testing.T, open opener) {
	db := mustOpen(t, open, Options{FlushInterval: time.Millisecond})
	for i := range 50 {
		db.PutDeadline(dl("k", time.Duration(i)))
		time.Sleep(time.Duration(i%3) * 300 * time.Microsecond)
		if err := db.PutDeadlineSync(dl("k", time.Duration(1000+i))); err != nil {
			t.Fatal(err)
		}
		db.PutDeadline(dl("c", time.Duration(i)))
		time.Sleep(time.Duration(i%2) * 500 * time.Microsecond)
		if _, err := db.Complete("c", false, wakewheel.Fire{Key: "c"}); err != nil {
			t.Fatal(err)
		}
	}
	time.Sleep(5 * time.Millisecond)
	wantDeadlines(t, db, dl("k", 1049))
}

func testSyncPath(t *testing.T, open opener) {
	db := mustOpen(t, open, manual)
	if err := db.PutDeadlineSync(dl("lease/a", 1)); err != nil {
		t.Fatal(err)
	}
	if err := db.Put("cursors", "lane", []byte("42"), true); err != nil {
		t.Fatal(err)
	}
	if st := db.Stats(); st.SyncedCommits < 1 || st.SyncedWrites != 2 {
		t.Errorf("Stats = %+v, want synced commits and 2 synced writes", st)
	}
	if err := db.Abandon(); err != nil {
		t.Fatal(err)
	}
	db = mustOpen(t, open, manual)
	wantDeadlines(t, db, dl("lease/a", 1))
	if v, _ := mustGet(t, db, "cursors", "lane"); v != "42" {
		t.Errorf("synced cursor = %q, want 42", v)
	}
}

func testReopenAfterClose(t *testing.T, open opener) {
	db := mustOpen(t, open, manual)
	db.PutDeadline(dl("behind", 1))
	if err := db.PutDeadlineSync(dl("synced", 2)); err != nil {
		t.Fatal(err)
	}
	if err := db.Put("roots", "/r", []byte("armed"), false); err != nil {
		t.Fatal(err)
	}
	if _, err := db.AddAlert(wakewheel.Alert{Code: "c"}); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Complete("gone", false, wakewheel.Fire{Key: "gone"}); err != nil {
		t.Fatal(err)
	}
	mustClose(t, db)

	db = mustOpen(t, open, manual)
	wantDeadlines(t, db, dl("behind", 1), dl("synced", 2))
	if v, _ := mustGet(t, db, "roots", "/r"); v != "armed" {
		t.Errorf("generic record = %q", v)
	}
	if a, _ := db.Alerts(0); len(a) != 1 || a[0].Code != "c" {
		t.Errorf("alerts = %+v", a)
	}
	if f, _ := db.Fires(0, 0); len(f) != 1 || f[0].Key != "gone" {
		t.Errorf("fires = %+v", f)
	}
}

func testReopenAfterAbandon(t *testing.T, open opener) {
	db := mustOpen(t, open, manual)
	db.PutDeadline(dl("flushed", 1))
	db.PutDeadline(dl("deleted-behind", 1))
	if err := db.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := db.PutDeadlineSync(dl("synced", 2)); err != nil {
		t.Fatal(err)
	}
	if err := db.Put("backlog", "r/1", []byte("a.go"), false); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Complete("x", false, wakewheel.Fire{Key: "x"}); err != nil {
		t.Fatal(err)
	}
	db.PutDeadline(dl("unflushed", 3)) // lost by the crash
	db.PutDeadline(dl("flushed", 4))   // lost: the flushed value stays
	db.DeleteDeadline("deleted-behind")
	if err := db.Abandon(); err != nil {
		t.Fatal(err)
	}

	db = mustOpen(t, open, manual)
	wantDeadlines(t, db, dl("flushed", 1), dl("deleted-behind", 1), dl("synced", 2))
	if v, _ := mustGet(t, db, "backlog", "r/1"); v != "a.go" {
		t.Errorf("unsynced generic record = %q, want it to survive a process crash", v)
	}
	if f, _ := db.Fires(0, 0); len(f) != 1 {
		t.Errorf("fires = %+v, want the one Complete", f)
	}
}

func testRoundTrip(t *testing.T, open opener) {
	db := mustOpen(t, open, manual)
	want := []deadlines.Deadline{
		{Key: "burst/repo", Kind: "burst", At: t0.Add(1), Since: t0.Add(-time.Second)},
		{Key: "push/zero-since", Kind: "reconcile", At: time.Unix(0, 1_775_000_000_123_456_789)},
		{Key: "nil-payload-empty-kind", At: t0},
		{Key: "payload", Kind: "redeliver", At: t0, Payload: []byte{0, 1, 2, 0xff}},
		{Key: "zero-at/ünïcode key\x00", Kind: "k"},
		{Key: "pre-epoch", Kind: "k", At: time.Unix(0, -5), Since: time.Unix(0, 0)},
		{Key: "big payload", Kind: "k", At: t0, Payload: make([]byte, 20000)},
	}
	for i, d := range want {
		if i%2 == 0 {
			db.PutDeadline(d)
		} else if err := db.PutDeadlineSync(d); err != nil {
			t.Fatal(err)
		}
	}
	mustClose(t, db)
	db = mustOpen(t, open, manual)
	wantDeadlines(t, db, want...)
}
