package store

import (
	"bytes"
	"errors"
	"flag"
	"os"
	"testing"

	"github.com/wakewheel/wakewheel/deadlines"
)

var updateFixture = flag.Bool("update-fixture", false, "rewrite testdata/fixture-v1 with this version of the store")

func TestMain(m *testing.M) {
	flag.Parse()
	code := m.Run()
	cleanupReloadStore()
	os.Exit(code)
}

// opener opens the same backing store each time it is called.
type opener func(Options) (*DB, error)

func mustOpen(t testing.TB, open opener, opts Options) *DB {
	t.Helper()
	db, err := open(opts)
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	t.Cleanup(func() {
		if err := db.Close(); err != nil && !errors.Is(err, ErrClosed) {
			t.Errorf("close: %v", err)
		}
	})
	return db
}

func mustClose(t testing.TB, db *DB) {
	t.Helper()
	if err := db.Close(); err != nil {
		t.Fatalf("close: %v", err)
	}
}

func loadAll(t testing.TB, db *DB) map[string]deadlines.Deadline {
	t.Helper()
	got := map[string]deadlines.Deadline{}
	if err := db.LoadDeadlines(func(d deadlines.Deadline) error {
		got[d.Key] = d
		return nil
	}); err != nil {
		t.Fatalf("LoadDeadlines: %v", err)
	}
	return got
}

func sameDeadline(a, b deadlines.Deadline) bool {
	return a.Key == b.Key && a.Kind == b.Kind && a.At.Equal(b.At) && a.Since.Equal(b.Since) &&
		a.At.IsZero() == b.At.IsZero() && a.Since.IsZero() == b.Since.IsZero() &&
		bytes.Equal(a.Payload, b.Payload) && (a.Payload == nil) == (b.Payload == nil)
}

// wantDeadlines fails unless the store holds exactly want.
func wantDeadlines(t testing.TB, db *DB, want ...deadlines.Deadline) {
	t.Helper()
	got := loadAll(t, db)
	if len(got) != len(want) {
		t.Errorf("store holds %d deadlines, want %d: %v", len(got), len(want), got)
	}
	for _, w := range want {
		g, ok := got[w.Key]
		if !ok {
			t.Errorf("deadline %q missing", w.Key)
		} else if !sameDeadline(g, w) {
			t.Errorf("deadline %q = %+v, want %+v", w.Key, g, w)
		}
	}
}

func mustGet(t testing.TB, db *DB, ns, key string) (string, bool) {
	t.Helper()
	v, ok, err := db.Get(ns, key)
	if err != nil {
		t.Fatalf("Get(%s, %s): %v", ns, key, err)
	}
	return string(v), ok
}
