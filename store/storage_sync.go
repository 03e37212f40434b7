package store

import (
	"os"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/syndtr/goleveldb/leveldb/storage"
)

// The journal's fsync without the Go scheduler's system-call path
// (Options.RawJournalSync). goleveldb's journal writer makes a synced batch
// durable with the journal file's Sync, an fsync issued like every blocking
// system call: its goroutine's processor is released for the call, the
// runtime's monitor thread takes the processor away once the call has lasted
// one of its polls, and every such retake keeps the monitor at its fastest
// poll (20 µs); the thread coming back from the fsync then has to win a
// processor again before the commit can be answered. A grouped commit spends
// most of its time in that fsync, so a busy daemon paid those switches on
// every batch.
//
// syncStorage wraps a file storage so that each journal file it creates
// syncs with the same fsync issued as a raw system call: the committing
// goroutine keeps its processor through the call (it holds no other Go
// work back: the process has one processor more than its CPUs when it asks
// for this), and the monitor sees a running goroutine, not a system call.
// The durability is goleveldb's: the call is fsync(2) on the journal's
// descriptor, and a commit is answered only after it returned. (fdatasync
// would be as durable for a file that only grows, and measured no faster
// here: BENCHMARKS.md, "64 posters, tenth landing".) The MANIFEST and the
// tables sync as goleveldb has them (the MANIFEST's Sync also syncs the
// directory): they sync rarely, and a table's sync is long. While the
// fsync holds its processor a stop of the world (a collection's start or
// end) waits for it to return.
//
// That wait is why a slow disk turns the raw path off: a raw fsync that
// took slowSync or longer sends the journal's next syncs back through the
// scheduler's path (where a stop of the world does not wait for them),
// until one of those is fast again. A disk stalled behind a checkout's
// writeback can take a second to fsync; only the one fsync during which it
// became slow can hold a collection, and with it every goroutine, back.
// slowSync is the runtime's own bound on a goroutine running without
// preemption (10 ms): a raw fsync may hold its processor as long as any
// goroutine may.
type syncStorage struct {
	storage.Storage
	syncs *syncCounts // for tests
}

// syncCounts counts a storage's journal syncs by their path.
type syncCounts struct {
	raw, slow atomic.Uint64
}

const slowSync = 10 * time.Millisecond

func newSyncStorage(s storage.Storage) syncStorage {
	return syncStorage{Storage: s, syncs: new(syncCounts)}
}

func (s syncStorage) Create(fd storage.FileDesc) (storage.Writer, error) {
	w, err := s.Storage.Create(fd)
	if err != nil || fd.Type != storage.TypeJournal || !haveRawSync {
		return w, err
	}
	f, ok := w.(interface {
		SyscallConn() (syscall.RawConn, error)
		Name() string
	})
	if !ok {
		return w, nil
	}
	rc, err := f.SyscallConn()
	if err != nil {
		return w, nil
	}
	return &rawSyncWriter{Writer: w, rc: rc, name: f.Name(), syncs: s.syncs, slow: slowSync}, nil
}

// rawSyncWriter is a journal file whose Sync is a raw fsync while the disk
// is fast.
type rawSyncWriter struct {
	storage.Writer
	rc       syscall.RawConn
	name     string
	syncs    *syncCounts
	slow     time.Duration // slowSync; tests set their own
	slowDisk atomic.Bool   // the last sync took slow or longer
}

func (w *rawSyncWriter) Sync() error {
	start := time.Now()
	var err error
	if w.slowDisk.Load() {
		if err = w.Writer.Sync(); err == nil {
			w.syncs.slow.Add(1)
		}
	} else {
		err = w.rawSync()
	}
	w.slowDisk.Store(time.Since(start) >= w.slow)
	return err
}

func (w *rawSyncWriter) rawSync() error {
	var errno syscall.Errno
	// Control holds the file open for the call: a concurrent Close waits.
	if err := w.rc.Control(func(fd uintptr) { errno = rawFsync(fd) }); err != nil {
		return &os.PathError{Op: "sync", Path: w.name, Err: err}
	}
	if errno != 0 {
		return &os.PathError{Op: "fsync", Path: w.name, Err: errno}
	}
	w.syncs.raw.Add(1)
	return nil
}

// RawJournalSync reports whether the store's journal syncs raw
// (Options.RawJournalSync, granted on Linux for a store opened by Open).
func (db *DB) RawJournalSync() bool {
	_, ok := db.stor.(syncStorage)
	return ok && haveRawSync
}
