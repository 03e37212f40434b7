package store

import (
	"os"
	"sync/atomic"
	"syscall"

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
type syncStorage struct {
	storage.Storage
	syncs *atomic.Uint64 // raw syncs done, for tests
}

func newSyncStorage(s storage.Storage) syncStorage {
	return syncStorage{Storage: s, syncs: new(atomic.Uint64)}
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
	return &rawSyncWriter{Writer: w, rc: rc, name: f.Name(), syncs: s.syncs}, nil
}

// rawSyncWriter is a journal file whose Sync is a raw fsync.
type rawSyncWriter struct {
	storage.Writer
	rc    syscall.RawConn
	name  string
	syncs *atomic.Uint64
}

func (w *rawSyncWriter) Sync() error {
	var errno syscall.Errno
	// Control holds the file open for the call: a concurrent Close waits.
	if err := w.rc.Control(func(fd uintptr) { errno = rawFsync(fd) }); err != nil {
		return &os.PathError{Op: "sync", Path: w.name, Err: err}
	}
	if errno != 0 {
		return &os.PathError{Op: "fsync", Path: w.name, Err: errno}
	}
	w.syncs.Add(1)
	return nil
}

// RawJournalSync reports whether the store's journal syncs raw
// (Options.RawJournalSync, granted on Linux for a store opened by Open).
func (db *DB) RawJournalSync() bool {
	_, ok := db.stor.(syncStorage)
	return ok && haveRawSync
}
