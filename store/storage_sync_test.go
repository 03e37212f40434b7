//go:build linux

package store

import (
	"testing"
	"time"

	"github.com/syndtr/goleveldb/leveldb/storage"
)

// With RawJournalSync every synced commit is one fsync of the journal
// (raw, or through the scheduler after a slow one: a loaded machine may
// take 10 ms), an unsynced write none, and what was synced reads back after a
// crash (Abandon) from a store opened the usual way.
func TestRawJournalSyncSyncsEveryCommit(t *testing.T) {
	dir := t.TempDir()
	db, err := Open(dir, Options{RawJournalSync: true})
	if err != nil {
		t.Fatal(err)
	}
	if !db.RawJournalSync() {
		t.Fatal("RawJournalSync() = false for a store opened with it on Linux")
	}
	counts := db.stor.(syncStorage).syncs
	syncs := func() uint64 { return counts.raw.Load() + counts.slow.Load() }
	raw0, syncs0, commits0 := counts.raw.Load(), syncs(), db.Stats().SyncedCommits
	for i := range time.Duration(5) {
		if err := db.PutDeadlineSync(dl("lease/raw", i+1)); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.Put("cursors", "lane", []byte("7"), true); err != nil {
		t.Fatal(err)
	}
	commits := db.Stats().SyncedCommits - commits0
	if got := syncs() - syncs0; commits != 6 || got != commits {
		t.Fatalf("%d journal syncs for %d synced commits, want 6 of each", got, commits)
	}
	if counts.raw.Load() == raw0 {
		t.Fatal("no synced commit synced raw")
	}
	syncs1 := syncs()
	if err := db.Put("backlog", "late", []byte("x"), false); err != nil {
		t.Fatal(err)
	}
	if got := syncs() - syncs1; got != 0 {
		t.Fatalf("an unsynced write made %d journal syncs", got)
	}
	if err := db.Abandon(); err != nil {
		t.Fatal(err)
	}

	db = mustOpen(t, func(o Options) (*DB, error) { return Open(dir, o) }, Options{})
	if db.RawJournalSync() {
		t.Error("RawJournalSync() = true for a store opened without it")
	}
	wantDeadlines(t, db, dl("lease/raw", 5))
	if v, ok := mustGet(t, db, "cursors", "lane"); v != "7" {
		t.Errorf("synced cursor = %q, %v after a crash", v, ok)
	}
}

// Only journals sync raw: the MANIFEST keeps goleveldb's Sync, which also
// syncs the directory. A closed journal's Sync fails instead of syncing
// whatever file took its descriptor.
func TestRawSyncOnlyJournals(t *testing.T) {
	s := newSyncStorage(openFileStorage(t))
	m := create(t, s, storage.FileDesc{Type: storage.TypeManifest, Num: 1})
	defer m.Close()
	if _, ok := m.(*rawSyncWriter); ok {
		t.Error("the MANIFEST syncs raw: its directory would not be synced")
	}
	j := create(t, s, storage.FileDesc{Type: storage.TypeJournal, Num: 2})
	if _, ok := j.(*rawSyncWriter); !ok {
		t.Fatalf("a journal's writer is %T, want the raw one", j)
	}
	if _, err := j.Write([]byte("record")); err != nil {
		t.Fatal(err)
	}
	if err := j.Sync(); err != nil {
		t.Fatalf("Sync: %v", err)
	}
	if got := s.syncs.raw.Load(); got != 1 {
		t.Errorf("%d raw syncs, want 1", got)
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	if err := j.Sync(); err == nil {
		t.Error("Sync of a closed journal succeeded")
	}
}

// A raw fsync that took slowSync or longer sends the next syncs through
// the scheduler's path until one of them is fast again.
func TestSlowRawSyncTurnsRawOff(t *testing.T) {
	s := newSyncStorage(openFileStorage(t))
	w := create(t, s, storage.FileDesc{Type: storage.TypeJournal, Num: 2})
	defer w.Close()
	j := w.(*rawSyncWriter)
	j.slow = 0 // every sync is slow
	step := func(want string, raw, slow uint64) {
		t.Helper()
		if _, err := j.Write([]byte("record")); err != nil {
			t.Fatal(err)
		}
		if err := j.Sync(); err != nil {
			t.Fatal(err)
		}
		if r, sl := s.syncs.raw.Load(), s.syncs.slow.Load(); r != raw || sl != slow {
			t.Fatalf("after %s: %d raw and %d scheduled syncs, want %d and %d", want, r, sl, raw, slow)
		}
	}
	step("the first sync (raw, slow)", 1, 0)
	step("a sync after a slow one", 1, 1)
	j.slow = time.Hour // the disk is fast again
	step("a sync after a slow scheduled one", 1, 2)
	step("a sync after a fast one", 2, 2)
}

// openFileStorage opens goleveldb's file storage in a fresh directory,
// closed at the test's end.
func openFileStorage(t *testing.T) storage.Storage {
	t.Helper()
	fs, err := storage.OpenFile(t.TempDir(), false)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { fs.Close() })
	return fs
}

// create creates s's file fd.
func create(t *testing.T, s storage.Storage, fd storage.FileDesc) storage.Writer {
	t.Helper()
	w, err := s.Create(fd)
	if err != nil {
		t.Fatal(err)
	}
	return w
}
