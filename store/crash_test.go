package store

import (
	"io"
	"sync"
	"testing"

	"github.com/syndtr/goleveldb/leveldb/storage"

	wakewheel "github.com/wakewheel/wakewheel"
)

// powerLossStorage is an in-memory storage that remembers how much of each
// file was fsynced; powerLoss cuts every file back to that, as a machine
// that loses power keeps only what reached the disk.
type powerLossStorage struct {
	storage.Storage
	mu      sync.Mutex
	written map[storage.FileDesc]int
	synced  map[storage.FileDesc]int
}

func newPowerLossStorage() *powerLossStorage {
	return &powerLossStorage{
		Storage: storage.NewMemStorage(),
		written: map[storage.FileDesc]int{},
		synced:  map[storage.FileDesc]int{},
	}
}

func (s *powerLossStorage) Create(fd storage.FileDesc) (storage.Writer, error) {
	w, err := s.Storage.Create(fd)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	s.written[fd], s.synced[fd] = 0, 0
	s.mu.Unlock()
	return &powerLossWriter{Writer: w, s: s, fd: fd}, nil
}

func (s *powerLossStorage) Rename(from, to storage.FileDesc) error {
	if err := s.Storage.Rename(from, to); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if n, ok := s.written[from]; ok {
		s.written[to], s.synced[to] = n, s.synced[from]
		delete(s.written, from)
		delete(s.synced, from)
	}
	return nil
}

// powerLoss truncates every file to its synced length. All files must be
// closed (the DB abandoned).
func (s *powerLossStorage) powerLoss(t *testing.T) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for fd, n := range s.written {
		keep := s.synced[fd]
		if keep == n {
			continue
		}
		r, err := s.Storage.Open(fd)
		if err != nil {
			continue // removed since
		}
		data, err := io.ReadAll(r)
		r.Close()
		if err != nil {
			t.Fatal(err)
		}
		w, err := s.Storage.Create(fd)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write(data[:keep]); err != nil {
			t.Fatal(err)
		}
		w.Close()
		t.Logf("power loss: %s cut from %d to %d bytes", fd, n, keep)
		s.written[fd] = keep
	}
}

type powerLossWriter struct {
	storage.Writer
	s  *powerLossStorage
	fd storage.FileDesc
}

func (w *powerLossWriter) Write(p []byte) (int, error) {
	n, err := w.Writer.Write(p)
	w.s.mu.Lock()
	w.s.written[w.fd] += n
	w.s.mu.Unlock()
	return n, err
}

func (w *powerLossWriter) Sync() error {
	w.s.mu.Lock()
	w.s.synced[w.fd] = w.s.written[w.fd]
	w.s.mu.Unlock()
	return w.Writer.Sync()
}

// TestPowerLossKeepsSyncedWrites: after a power loss every synced write is
// there (with whatever preceded it in the journal); unsynced writes after
// the last fsync are gone.
func TestPowerLossKeepsSyncedWrites(t *testing.T) {
	s := newPowerLossStorage()
	open := func(o Options) (*DB, error) { return OpenStorage(s, o) }
	db := mustOpen(t, open, manual)

	db.PutDeadline(dl("burst/flushed", 1))
	if err := db.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := db.PutDeadlineSync(dl("lease/synced", 2)); err != nil {
		t.Fatal(err)
	}
	if err := db.Put("cursors", "lane", []byte("7"), true); err != nil {
		t.Fatal(err)
	}
	if err := db.Put("backlog", "late", []byte("x"), false); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Complete("lease/synced", false, wakewheel.Fire{Key: "lease/synced"}); err != nil {
		t.Fatal(err)
	}
	if err := db.Abandon(); err != nil {
		t.Fatal(err)
	}
	s.powerLoss(t)

	db = mustOpen(t, open, manual)
	wantDeadlines(t, db, dl("burst/flushed", 1), dl("lease/synced", 2))
	if v, ok := mustGet(t, db, "cursors", "lane"); v != "7" {
		t.Errorf("synced cursor = %q, %v after a power loss", v, ok)
	}
	if _, ok := mustGet(t, db, "backlog", "late"); ok {
		t.Error("an unsynced write after the last fsync survived the power loss: the simulation does not bite")
	}
	if f, _ := db.Fires(0, 0); len(f) != 0 {
		t.Errorf("fires = %+v, want the unsynced Complete lost", f)
	}
}
