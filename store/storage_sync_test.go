//go:build linux

package store

import (
	"testing"
	"time"

	"github.com/syndtr/goleveldb/leveldb/storage"
)

// With RawJournalSync every synced commit is one raw fsync of the
// journal, an unsynced write none, and what was synced reads back after a
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
	raw := db.stor.(syncStorage).syncs
	raw0, commits0 := raw.Load(), db.Stats().SyncedCommits
	for i := range time.Duration(5) {
		if err := db.PutDeadlineSync(dl("lease/raw", i+1)); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.Put("cursors", "lane", []byte("7"), true); err != nil {
		t.Fatal(err)
	}
	commits := db.Stats().SyncedCommits - commits0
	if got := raw.Load() - raw0; commits != 6 || got != commits {
		t.Fatalf("%d raw syncs for %d synced commits, want 6 of each", got, commits)
	}
	raw1 := raw.Load()
	if err := db.Put("backlog", "late", []byte("x"), false); err != nil {
		t.Fatal(err)
	}
	if got := raw.Load() - raw1; got != 0 {
		t.Fatalf("an unsynced write made %d raw syncs", got)
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
	fs, err := storage.OpenFile(t.TempDir(), false)
	if err != nil {
		t.Fatal(err)
	}
	defer fs.Close()
	s := newSyncStorage(fs)
	m, err := s.Create(storage.FileDesc{Type: storage.TypeManifest, Num: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if _, ok := m.(*rawSyncWriter); ok {
		t.Error("the MANIFEST syncs raw: its directory would not be synced")
	}
	j, err := s.Create(storage.FileDesc{Type: storage.TypeJournal, Num: 2})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := j.(*rawSyncWriter); !ok {
		t.Fatalf("a journal's writer is %T, want the raw one", j)
	}
	if _, err := j.Write([]byte("record")); err != nil {
		t.Fatal(err)
	}
	if err := j.Sync(); err != nil {
		t.Fatalf("Sync: %v", err)
	}
	if got := s.syncs.Load(); got != 1 {
		t.Errorf("%d raw syncs, want 1", got)
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	if err := j.Sync(); err == nil {
		t.Error("Sync of a closed journal succeeded")
	}
}
