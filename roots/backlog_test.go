package roots

import (
	"fmt"
	"maps"
	"slices"
	"testing"

	"github.com/rs/zerolog"

	"github.com/wakewheel/wakewheel/store"
)

// A backlog record's key is "%016x/%016x" of the root's id and the seq,
// written without fmt; it parses back.
func TestQueueKeyIsFixedWidthHex(t *testing.T) {
	for _, v := range [][2]uint64{{0, 0}, {1, 2}, {0xdeadbeef, 1<<64 - 1}, {12345, 67890}} {
		key := queueKey(v[0], v[1])
		if want := fmt.Sprintf("%016x/%016x", v[0], v[1]); key != want {
			t.Fatalf("queueKey(%d, %d) = %s, want %s", v[0], v[1], key, want)
		}
		if id, seq, ok := parseQueueKey(key); !ok || id != v[0] || seq != v[1] {
			t.Fatalf("parseQueueKey(%s) = %d, %d, %v", key, id, seq, ok)
		}
	}
}

// A capture's plan skips paths already waiting and repeated ones.
func TestPlanSkipsWaitingAndRepeatedPaths(t *testing.T) {
	q := newBacklog(7)
	q.commit(q.plan([]string{"a", "b"}))
	add := q.plan([]string{"b", "c", "c", "d"})
	if len(add) != 2 || add[0].path != "c" || add[1].path != "d" {
		t.Fatalf("plan: %+v", add)
	}
}

// A capture's entries are stored recordPaths to a record; a record is
// deleted once its last entry was ingested, the one a batch ended inside
// is written again from its first entry left, and a backlog loaded from
// the records left (a crash) holds exactly the entries not yet ingested.
// A record of one path (written before records held more) loads as one
// entry.
func TestBacklogRecordsHoldManyPathsAndLoadBack(t *testing.T) {
	q := newBacklog(3)
	paths := make([]string, 2*recordPaths+10)
	for i := range paths {
		paths[i] = fmt.Sprintf("d/f%05d", i)
	}
	add := q.plan(paths)
	ops := q.records(add)
	q.commit(add)
	if len(ops) != 3 {
		t.Fatalf("%d records for %d paths, want 3", len(ops), len(paths))
	}
	kv := map[string][]byte{}
	apply := func(ops []store.Op) {
		for _, op := range ops {
			if op.Delete {
				delete(kv, op.Key)
			} else {
				kv[op.Key] = op.Value
			}
		}
	}
	reload := func() *backlog {
		again := newBacklog(3)
		keys := slices.Sorted(maps.Keys(kv))
		for _, k := range keys {
			_, seq, ok := parseQueueKey(k)
			if !ok {
				t.Fatalf("bad key %q", k)
			}
			again.load(seq, kv[k])
		}
		return again
	}
	apply(ops)
	if got := reload(); !slices.Equal(got.entries, q.entries) {
		t.Fatalf("loaded back %d entries, want the %d written", got.Len(), q.Len())
	}

	// A batch ending inside the second record deletes the first and
	// rewrites the second from its first entry left.
	batch := q.take(recordPaths + 100)
	apply(q.done(true))
	if len(kv) != 2 {
		t.Fatalf("%d records left after %d ingested, want 2", len(kv), len(batch))
	}
	crashed := reload()
	left := paths[len(batch):]
	got := make([]string, crashed.Len())
	for i, e := range crashed.entries {
		got[i] = e.path
	}
	if !slices.Equal(got, left) {
		t.Fatalf("after a crash: %d entries from %q; want the %d not ingested, from %q", len(got), got[0], len(left), left[0])
	}
	// Batches of 4 inside one record: each rewrites the rest.
	for range 3 {
		q.take(4)
		apply(q.done(true))
		if got := reload(); got.Len() != q.Len() || got.entries[0].path != q.entries[0].path {
			t.Fatalf("after a small batch: %d entries loaded, %d waiting", got.Len(), q.Len())
		}
	}
	q.take(len(paths))
	apply(q.done(true))
	if len(kv) != 0 || q.Len() != 0 {
		t.Fatalf("all ingested: %d records left, %d entries", len(kv), q.Len())
	}

	old := newBacklog(3)
	old.load(9, []byte("one path"))
	if old.Len() != 1 || old.entries[0] != (entry{seq: 9, rec: 9, path: "one path"}) || old.next != 10 {
		t.Fatalf("a one-path record: %+v", old.entries)
	}
}

// A record whose every path was already queued by an earlier record (a
// duplicate an interrupted failure path left) holds no entry once loaded,
// so no batch would ever delete it: the load deletes it, and its paths
// stay queued by the earlier record. A record that still holds an entry
// stays.
func TestLoadDeletesARecordOfDuplicatesOnly(t *testing.T) {
	db, err := store.Open(t.TempDir(), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rec := Record{ID: 7, Path: "/src/repo", Armed: true, Ingest: "true"}
	if err := db.Write(true,
		store.PutOp(nsRoots, rec.Path, encodeRecord(rec)),
		store.PutOp(nsQueue, queueKey(7, 10), []byte("a\x00b")),
		store.PutOp(nsQueue, queueKey(7, 12), []byte("b\x00a")), // duplicates only
		store.PutOp(nsQueue, queueKey(7, 14), []byte("a\x00c")), // c is new
	); err != nil {
		t.Fatal(err)
	}
	m, err := Open(db, Options{Logger: zerolog.Nop()})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	var paths []string
	for _, e := range m.roots[rec.Path].q.entries {
		paths = append(paths, e.path)
	}
	if !slices.Equal(paths, []string{"a", "b", "c"}) {
		t.Fatalf("backlog after load %q, want [a b c]", paths)
	}
	var left []string
	if err := db.Scan(nsQueue, "", func(key string, _ []byte) error { left = append(left, key); return nil }); err != nil {
		t.Fatal(err)
	}
	if want := []string{queueKey(7, 10), queueKey(7, 14)}; !slices.Equal(left, want) {
		t.Fatalf("records left after load %q, want %q (the duplicates-only one deleted)", left, want)
	}
}
