package store

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/syndtr/goleveldb/leveldb/storage"
)

// slowSyncStorage makes every fsync take a while, like a disk does, so
// that concurrent synced writes overlap deterministically.
type slowSyncStorage struct {
	storage.Storage
	delay time.Duration
}

func (s slowSyncStorage) Create(fd storage.FileDesc) (storage.Writer, error) {
	w, err := s.Storage.Create(fd)
	if err != nil {
		return nil, err
	}
	return slowSyncWriter{w, s.delay}, nil
}

type slowSyncWriter struct {
	storage.Writer
	delay time.Duration
}

func (w slowSyncWriter) Sync() error {
	time.Sleep(w.delay)
	return w.Writer.Sync()
}

func TestSyncedWritesAreGrouped(t *testing.T) {
	const callers = 32
	s := slowSyncStorage{storage.NewMemStorage(), 2 * time.Millisecond}
	db := mustOpen(t, func(o Options) (*DB, error) { return OpenStorage(s, o) }, manual)
	before := db.Stats()

	var start, done sync.WaitGroup
	start.Add(1)
	for i := range callers {
		done.Go(func() {
			start.Wait()
			if err := db.PutDeadlineSync(dl(fmt.Sprint("lease/", i), time.Duration(i))); err != nil {
				t.Error(err)
			}
		})
	}
	start.Done()
	done.Wait()

	after := db.Stats()
	commits, writes := after.SyncedCommits-before.SyncedCommits, after.SyncedWrites-before.SyncedWrites
	t.Logf("%d concurrent PutDeadlineSync calls: %d synced commits", writes, commits)
	if writes != callers || commits >= callers {
		t.Errorf("%d synced writes in %d synced commits; want %d writes in fewer commits", writes, commits, callers)
	}
	if got := len(loadAll(t, db)); got != callers {
		t.Errorf("%d deadlines persisted, want %d", got, callers)
	}
}
