package store

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/syndtr/goleveldb/leveldb"
	"github.com/syndtr/goleveldb/leveldb/opt"
	"github.com/syndtr/goleveldb/leveldb/storage"
)

// Options tunes a DB. Zero fields take the defaults below (the registered
// numbers; doc.go says why).
type Options struct {
	// FlushInterval bounds how long a write-behind deadline waits before it
	// is written. Default DefaultFlushInterval.
	FlushInterval time.Duration
	// AlertCap bounds the alert log; the oldest alerts are trimmed first.
	// Default DefaultAlertCap.
	AlertCap int
	// FireCap bounds the fire history; the oldest fires are trimmed first.
	// Default DefaultFireCap.
	FireCap int
	// HealInterval is how often a store that cannot write tries to heal
	// (heal.go). Default DefaultHealInterval.
	HealInterval time.Duration
	// LoadChecksDeadlines is for a caller that reads every deadline with
	// LoadDeadlines right after Open, before it trusts the store (the
	// daemon): Open then reads and checks every record but the deadlines,
	// and the load checks theirs, with the same strictness and the same
	// ErrCorrupt. Reading the deadlines once instead of twice is most of
	// a restart's cost at a million of them. Such a store reads with
	// goleveldb's block buffer pool until the caller says EndLoad
	// (load_buffers.go).
	LoadChecksDeadlines bool
	// RawJournalSync syncs the journal with a raw fsync that keeps the
	// committing goroutine's processor (storage_sync.go), for a process
	// that runs with a processor more than its CPUs (the daemon): while
	// the fsync holds one, the others still use every CPU; after a slow
	// fsync the next go through the scheduler's path until one is fast
	// again. Durability is the same either way. Only for a store opened
	// by Open, on Linux.
	RawJournalSync bool
}

// Registered defaults.
const (
	DefaultFlushInterval = 100 * time.Millisecond
	DefaultAlertCap      = 1000
	DefaultFireCap       = 10000
)

func (o Options) withDefaults() Options {
	orDefault(&o.FlushInterval, DefaultFlushInterval)
	orDefault(&o.AlertCap, DefaultAlertCap)
	orDefault(&o.FireCap, DefaultFireCap)
	orDefault(&o.HealInterval, DefaultHealInterval)
	return o
}

// orDefault sets an unset option (zero or less) to its default.
func orDefault[T int | time.Duration](v *T, def T) {
	if *v <= 0 {
		*v = def
	}
}

// DB is the engine's LevelDB store. It is safe for concurrent use. Close
// (or Abandon) it when done.
type DB struct {
	name string // directory, or a label for OpenStorage, used in errors
	dir  string // the directory; "" for a store on a storage
	// ldb is the LevelDB handle: writers use it under wmu, readers through
	// readHandle; the healer swaps it holding both (heal.go). It is nil
	// only while a heal failed to reopen.
	ldb  *leveldb.DB
	opts Options
	// loadPool: ldb was opened with its block buffer pool, for the load;
	// guarded by wmu (EndLoad and a heal's reopen clear it)
	loadPool bool
	// stor is the storage ldb is open on; a heal reopens on it.
	stor storage.Storage
	// storage is closed after ldb when Open opened it (OpenStorage's is
	// the caller's).
	storage  storage.Storage
	rmu      sync.Mutex
	rcond    sync.Cond
	readers  int  // reads in flight; guarded by rmu
	draining bool // a heal holds new reads back; guarded by rmu
	fault    fault
	gate     gate
	wit      *witness // the sync witness (integrity.go); nil on a storage
	notes    []string // what Open had to drop, for OpenNotes

	// wmu serialises every write to ldb, and is held by a write-behind
	// flush from the moment it takes the buffer until its batch is written.
	// So a write that first drops a key's pending entry and then writes
	// under wmu can never be overtaken by a stale flush (see writebehind.go).
	wmu        sync.Mutex
	fireFirst  uint64        // oldest fire seq kept; guarded by wmu
	fireNext   uint64        // next fire seq; guarded by wmu
	alertFirst uint64        // guarded by wmu
	alertNext  uint64        // guarded by wmu
	flushBatch leveldb.Batch // reused by flushes; guarded by wmu
	doneBatch  leveldb.Batch // reused by CompleteAll; guarded by wmu
	flushKey   []byte        // guarded by wmu
	syncMarks  uint64        // guarded by wmu; the value of v/sync
	syncBatch  leveldb.Batch // used by the committer goroutine only

	wb writeBehind

	// alertsLogged: the alert log holds a record (it is never emptied once
	// it does), so Alerts need not open an iterator over every table to
	// find an empty log, which a status asks for each time (records.go).
	alertsLogged atomic.Bool

	syncC chan *syncReq // unbuffered: a sent request is always answered
	quit  chan struct{}
	wg    sync.WaitGroup

	batches, records, syncedCommits, syncedWrites, flushes, witnessErrs atomic.Uint64
	syncNanos                                                           atomic.Int64 // in synced commits' writes
}

// Stats are counters since Open.
type Stats struct {
	Batches       uint64 // LevelDB write batches issued (every write is one batch)
	Records       uint64 // puts and deletes in those batches
	SyncedCommits uint64 // batches written with fsync
	SyncedWrites  uint64 // synced write calls served by those commits
	Flushes       uint64 // write-behind flushes that wrote something
	Pending       int    // deadline keys waiting in the write-behind buffer
	// SyncTime is the time synced commits spent in LevelDB's write, its
	// fsync included (the committer's own time, not its callers' wait).
	SyncTime time.Duration
}

// Stats returns the counters.
func (db *DB) Stats() Stats {
	return Stats{
		Batches:       db.batches.Load(),
		Records:       db.records.Load(),
		SyncedCommits: db.syncedCommits.Load(),
		SyncedWrites:  db.syncedWrites.Load(),
		Flushes:       db.flushes.Load(),
		Pending:       db.wb.pendingLen(),
		SyncTime:      time.Duration(db.syncNanos.Load()),
	}
}

// Open opens the store in dir, creating dir (mode 0700) and an empty store
// if missing. Every file of the store is kept mode 0600 (private.go). A new store gets the schema version record; an existing one
// must carry a version this build reads.
func Open(dir string, opts Options) (*DB, error) {
	priv, err := openPrivate(dir)
	if err != nil {
		return nil, wrapErr(dir, "open "+dir, err)
	}
	var stor storage.Storage = priv
	if opts.RawJournalSync {
		stor = newSyncStorage(priv)
	}
	ldb, note, err := openStrict(dir, stor, opts.LoadChecksDeadlines)
	if err != nil {
		stor.Close()
		return nil, wrapErr(dir, "open "+dir, err)
	}
	wit, err := openWitness(dir)
	if err != nil {
		return nil, errors.Join(fmt.Errorf("store: open %s: %w", dir, err), ldb.Close(), stor.Close())
	}
	db, err := start(dir, dir, stor, ldb, wit, opts)
	if err != nil {
		return nil, errors.Join(err, wit.close(), stor.Close())
	}
	db.storage, db.loadPool = stor, opts.LoadChecksDeadlines
	if note != "" {
		db.notes = append(db.notes, note)
	}
	return db, nil
}

// OpenNotes says what Open dropped to open the store (a torn journal tail
// that held nothing acknowledged), for the caller to log and alert.
func (db *DB) OpenNotes() []string { return db.notes }

// Dir is the store's directory ("" for a store on a storage).
func (db *DB) Dir() string { return db.dir }

// OpenStorage opens a store on any goleveldb storage, such as
// storage.NewMemStorage() for tests and simulations. The storage stays the
// caller's: Close does not close it, so it can be opened again. Errors call
// the store "(storage)".
func OpenStorage(s storage.Storage, opts Options) (*DB, error) {
	const name = "(storage)"
	ldb, err := leveldb.Open(s, strictOptions())
	if err != nil {
		return nil, wrapErr(name, "open", err)
	}
	return start(name, "", s, ldb, nil, opts)
}

func start(name, dir string, stor storage.Storage, ldb *leveldb.DB, wit *witness, opts Options) (*DB, error) {
	db := &DB{
		name:  name,
		dir:   dir,
		wit:   wit,
		ldb:   ldb,
		stor:  stor,
		opts:  opts.withDefaults(),
		syncC: make(chan *syncReq),
		quit:  make(chan struct{}),
	}
	db.gate.init()
	db.wb.init()
	db.rcond.L = &db.rmu
	db.fault.kick = make(chan struct{}, 1)
	if err := db.prepare(); err != nil {
		return nil, errors.Join(err, ldb.Close())
	}
	db.wg.Add(3)
	go db.flusher()
	go db.committer()
	go db.healer()
	return db, nil
}

// prepare checks the schema, reads and checks every record (integrity.go)
// and finds the log sequence numbers.
func (db *DB) prepare() (err error) {
	defer catchLevelDBPanic(db.name, &err)
	if err := db.checkSchema(); err != nil {
		return err
	}
	if err := db.verify(db.dir); err != nil {
		return err
	}
	return db.loadSeqs()
}

// Close writes the write-behind buffer, stops the background goroutines and
// closes LevelDB. Calls that start after Close return ErrClosed;
// PutDeadline and DeleteDeadline become no-ops. Close must not be called
// from a callback of LoadDeadlines, Scan or the like.
func (db *DB) Close() error { return db.shutdown(true) }

// Abandon simulates a process crash for tests: the write-behind buffer is
// dropped unwritten, then LevelDB is closed. Everything written before (even
// unsynced, as it sits in the OS page cache after a real crash) survives.
func (db *DB) Abandon() error { return db.shutdown(false) }

func (db *DB) shutdown(flush bool) error {
	if !db.gate.close() {
		return ErrClosed
	}
	close(db.quit)
	db.wg.Wait()
	db.wb.close()
	var err error
	if flush {
		err = errors.Join(db.takeBackgroundErr(), db.flushPending())
	} else {
		db.wb.drop()
	}
	if db.ldb != nil {
		err = errors.Join(err, db.wrap("close", db.ldb.Close()))
	}
	err = errors.Join(err, db.wit.close())
	if db.storage != nil {
		err = errors.Join(err, db.wrap("close", db.storage.Close()))
	}
	return err
}

// writeLocked writes b to LevelDB and counts it. The caller holds wmu.
// While the store cannot write it fails at once with the episode's
// ErrUnwritable error; a write error that healing can cure starts an
// episode (heal.go).
func (db *DB) writeLocked(b *leveldb.Batch, sync bool) error {
	if b.Len() == 0 {
		return nil
	}
	if err := db.faultErr(); err != nil {
		return err
	}
	if err := db.ldb.Write(b, &opt.WriteOptions{Sync: sync}); err != nil {
		return db.noteWriteErr(err)
	}
	db.batches.Add(1)
	db.records.Add(uint64(b.Len()))
	if sync {
		db.syncedCommits.Add(1)
	}
	return nil
}

// gate admits calls until it is closed, and lets close wait for the calls
// inside to leave. Unlike a RWMutex it does not deadlock when a callback
// re-enters the DB while Close is waiting: the inner call gets ErrClosed.
type gate struct {
	mu     sync.Mutex
	left   sync.Cond
	n      int
	closed bool
}

func (g *gate) init() { g.left.L = &g.mu }

func (g *gate) enter() error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed {
		return ErrClosed
	}
	g.n++
	return nil
}

func (g *gate) leave() {
	g.mu.Lock()
	g.n--
	if g.n == 0 && g.closed {
		g.left.Broadcast()
	}
	g.mu.Unlock()
}

// close reports false if the gate was already closed.
func (g *gate) close() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed {
		return false
	}
	g.closed = true
	for g.n > 0 {
		g.left.Wait()
	}
	return true
}
