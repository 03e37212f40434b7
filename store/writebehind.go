package store

import (
	"errors"
	"sync"
	"time"

	"github.com/syndtr/goleveldb/leveldb"

	"github.com/wakewheel/wakewheel/deadlines"
)

// Write-behind: PutDeadline and DeleteDeadline only record the latest
// encoded value (or a tombstone) of a key in memory. A background flusher
// writes the buffer as one unsynced batch at most FlushInterval after the
// first unwritten change, or as soon as it holds maxPendingKeys keys.
//
// Ordering. A flush holds wmu from the moment it swaps the buffer out until
// its batch is written. Every other write (synced deadline writes, Complete)
// first drops the key's pending entry, then writes under wmu. So a stale
// pending value was either written before that write (the flush held wmu
// first) or dropped; it can never land after it.

// maxPendingKeys is the buffer size that triggers a flush at once. At
// ~50 bytes a record such a batch stays far below goleveldb's 4 MiB write
// buffer, above which a batch would bypass the journal as a transaction.
const maxPendingKeys = 4096

// throttlePendingKeys is backpressure: a caller that finds this many keys
// pending (the flusher is not keeping up with the disk) flushes itself. So
// the buffer, and a flush batch, never grows much beyond it.
const throttlePendingKeys = 2 * maxPendingKeys

// maxKeptFlushBatch is the largest flush batch buffer kept for reuse.
const maxKeptFlushBatch = 1 << 20

type pendingEntry struct {
	val []byte // encoded deadline (nil for a tombstone)
	del bool
}

type writeBehind struct {
	mu      sync.Mutex
	pending map[string]*pendingEntry
	spare   map[string]*pendingEntry // an emptied map for the next swap
	free    []*pendingEntry          // entries (and their buffers) for reuse
	closed  bool
	err     error         // a background flush error not yet reported
	kick    chan struct{} // the buffer became non-empty
	full    chan struct{} // the buffer reached maxPendingKeys
}

func (wb *writeBehind) init() {
	wb.pending = make(map[string]*pendingEntry)
	wb.kick = make(chan struct{}, 1)
	wb.full = make(chan struct{}, 1)
}

// entryLocked returns key's entry, creating it (and waking the flusher) if
// needed. The caller holds mu.
func (wb *writeBehind) entryLocked(key string) *pendingEntry {
	if e := wb.pending[key]; e != nil {
		return e
	}
	var e *pendingEntry
	if n := len(wb.free); n > 0 {
		e, wb.free = wb.free[n-1], wb.free[:n-1]
	} else {
		e = new(pendingEntry)
	}
	wb.pending[key] = e
	switch len(wb.pending) {
	case 1:
		signal(wb.kick)
	case maxPendingKeys:
		signal(wb.full)
	}
	return e
}

func signal(c chan struct{}) {
	select {
	case c <- struct{}{}:
	default:
	}
}

// drop forgets key's pending change, if any.
func (wb *writeBehind) dropKey(key string) {
	wb.mu.Lock()
	if e := wb.pending[key]; e != nil {
		delete(wb.pending, key)
		wb.recycleLocked(e)
	}
	wb.mu.Unlock()
}

func (wb *writeBehind) recycleLocked(e *pendingEntry) {
	if len(wb.free) < throttlePendingKeys {
		e.val, e.del = e.val[:0], false
		wb.free = append(wb.free, e)
	}
}

// take swaps the buffer out; the caller holds wmu and later calls release.
func (wb *writeBehind) take() map[string]*pendingEntry {
	wb.mu.Lock()
	defer wb.mu.Unlock()
	m := wb.pending
	if len(m) == 0 {
		return nil
	}
	if wb.spare != nil {
		wb.pending, wb.spare = wb.spare, nil
	} else {
		wb.pending = make(map[string]*pendingEntry)
	}
	return m
}

// release recycles a taken map once its batch is built.
func (wb *writeBehind) release(m map[string]*pendingEntry) {
	wb.mu.Lock()
	defer wb.mu.Unlock()
	for _, e := range m {
		wb.recycleLocked(e)
	}
	if len(m) <= 2*throttlePendingKeys && wb.spare == nil {
		clear(m)
		wb.spare = m
	}
}

func (wb *writeBehind) pendingLen() int {
	wb.mu.Lock()
	defer wb.mu.Unlock()
	return len(wb.pending)
}

func (wb *writeBehind) close() {
	wb.mu.Lock()
	wb.closed = true
	wb.mu.Unlock()
}

func (wb *writeBehind) drop() {
	wb.mu.Lock()
	wb.pending = make(map[string]*pendingEntry)
	wb.mu.Unlock()
}

// PutDeadline records d to be written behind: the latest value of a key
// wins, and it reaches LevelDB (unsynced) within FlushInterval. It does not
// wait for I/O unless throttlePendingKeys keys are pending (the disk is not
// keeping up): then it flushes them itself. After Close it does nothing.
func (db *DB) PutDeadline(d deadlines.Deadline) {
	wb := &db.wb
	wb.mu.Lock()
	n := 0
	if !wb.closed {
		e := wb.entryLocked(d.Key)
		e.val, e.del = appendDeadline(e.val[:0], d), false
		n = len(wb.pending)
	}
	wb.mu.Unlock()
	if n >= throttlePendingKeys {
		db.throttle()
	}
}

// DeleteDeadline records the deletion of key, written behind like
// PutDeadline and coalesced with the key's other pending changes.
func (db *DB) DeleteDeadline(key string) {
	wb := &db.wb
	wb.mu.Lock()
	n := 0
	if !wb.closed {
		e := wb.entryLocked(key)
		e.val, e.del = e.val[:0], true
		n = len(wb.pending)
	}
	wb.mu.Unlock()
	if n >= throttlePendingKeys {
		db.throttle()
	}
}

// throttle flushes on the caller's time, unless another flush got there
// first. An error is kept for the next Flush or Close, like the flusher's.
func (db *DB) throttle() {
	if db.gate.enter() != nil {
		return
	}
	defer db.gate.leave()
	db.wmu.Lock()
	defer db.wmu.Unlock()
	if db.wb.pendingLen() >= throttlePendingKeys {
		db.keepBackgroundErr(db.flushLocked())
	}
}

// Flush writes the write-behind buffer now, as one unsynced batch. It also
// reports a background flush error that was not reported yet. The changes
// of a failed flush are dropped, not retried: goleveldb write errors are
// not transient (I/O error, full disk, corruption), and a retry could land
// after a newer synced write of the same key.
func (db *DB) Flush() error {
	if err := db.gate.enter(); err != nil {
		return err
	}
	defer db.gate.leave()
	return errors.Join(db.takeBackgroundErr(), db.flushPending())
}

func (db *DB) flushPending() error {
	db.wmu.Lock()
	defer db.wmu.Unlock()
	return db.flushLocked()
}

// flushLocked writes the buffer; the caller holds wmu.
func (db *DB) flushLocked() error {
	b := &db.flushBatch
	b.Reset()
	if !db.appendPendingLocked(b) {
		return nil
	}
	err := db.writeLocked(b, false)
	if cap(b.Dump()) > maxKeptFlushBatch {
		*b = leveldb.Batch{} // do not keep a huge buffer after an explicit big flush
	}
	if err != nil {
		return db.wrap("flush deadlines", err)
	}
	db.flushes.Add(1)
	return nil
}

func (db *DB) takeBackgroundErr() error {
	db.wb.mu.Lock()
	defer db.wb.mu.Unlock()
	err := db.wb.err
	db.wb.err = nil
	return err
}

// flusher sleeps until the buffer becomes non-empty, then waits at most
// FlushInterval (less if the buffer fills) and flushes. An idle store has
// no wake-ups.
func (db *DB) flusher() {
	defer db.wg.Done()
	wb := &db.wb
	timer := time.NewTimer(db.opts.FlushInterval)
	timer.Stop()
	for {
		select {
		case <-wb.kick:
		case <-db.quit:
			return
		}
		timer.Reset(db.opts.FlushInterval)
		select {
		case <-timer.C:
		case <-wb.full:
			timer.Stop()
		case <-db.quit:
			timer.Stop()
			return
		}
		select { // a full signal from before this flush is stale
		case <-wb.full:
		default:
		}
		db.keepBackgroundErr(db.flushPending())
	}
}

// keepBackgroundErr keeps the first error of a flush nobody waited for.
func (db *DB) keepBackgroundErr(err error) {
	if err == nil {
		return
	}
	db.wb.mu.Lock()
	if db.wb.err == nil {
		db.wb.err = err
	}
	db.wb.mu.Unlock()
}

// appendPendingLocked moves the write-behind buffer into b and reports
// whether it held anything; the caller holds wmu and writes b.
func (db *DB) appendPendingLocked(b *leveldb.Batch) bool {
	m := db.wb.take()
	if m == nil {
		return false
	}
	key := db.flushKey
	for k, e := range m {
		key = deadlineKey(key[:0], k)
		if e.del {
			b.Delete(key)
		} else {
			b.Put(key, e.val)
		}
	}
	db.flushKey = key
	db.wb.release(m)
	return true
}
