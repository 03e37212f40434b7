package store

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/syndtr/goleveldb/leveldb"
	"github.com/syndtr/goleveldb/leveldb/opt"

	wakewheel "github.com/wakewheel/wakewheel"
)

// Healing a store that cannot write (a full disk, a transient I/O error).
//
// goleveldb's journal writer keeps its first write error: once a journal
// write fails, every later write fails with it, even after the disk has
// room again. So a write error that is not corruption puts the DB in a
// fault: writes fail at once with ErrUnwritable (nothing of the call is
// written), reads go on, and the healer goroutine tries every HealInterval
// to reopen LevelDB on the same storage — first proving there is room (a
// probe file as large as the journal plus a margin, fsynced and removed),
// because reopening replays the journal into a new table. The failed write
// left at most a torn tail in the newest journal, which the strict open
// drops (integrity.go): it was never acknowledged.
//
// The handle swap is consistent for every user of the DB: writes (the
// committer, the flusher, immediate writes) hold wmu, and reads hold a
// reader count (rmu); the healer takes both — it holds new reads back,
// waits (at most drainWait) until none is in flight, then takes wmu — so
// nobody ever sees a closed handle. A read nested in a Scan callback that
// waits behind a drain is let through when the drain gives up (the heal
// is retried at the next interval): never a deadlock. The order is a read
// handle, then wmu: code that holds wmu never asks for a read handle.
//
// The episode is told in the alert log: alerts raised while the store
// could not write are held in memory (at most maxHeldAlerts; Alerts shows
// them, without a Seq) and written when the store heals, after an alert
// store_write_failed that says when and why, and before store_healed.

// ErrUnwritable: the store cannot write (its disk is full, or it failed an
// I/O); it heals by itself once it can write again. Nothing of a call
// that failed with it was written.
var ErrUnwritable = errors.New("store: cannot write")

// DefaultHealInterval is how often a store that cannot write tries to heal.
const DefaultHealInterval = time.Second

// healMargin is the room a probe asks for beyond the journals' size.
const healMargin = 1 << 20

// maxHeldAlerts bounds the alerts kept in memory while the store cannot
// write.
const maxHeldAlerts = 256

// fault is the state of a DB that cannot write; zero when it can.
type fault struct {
	mu      sync.Mutex
	cause   error     // the write error that started the episode
	since   time.Time // when
	refused uint64    // writes refused since
	last    error     // the latest failed heal attempt
	held    []wakewheel.Alert
	dropped int // held alerts beyond maxHeldAlerts
	kick    chan struct{}
}

// unwritableError says since when and why the store cannot write.
type unwritableError struct {
	name  string
	since time.Time
	every time.Duration
	cause error
}

func (e *unwritableError) Error() string {
	return fmt.Sprintf("store %s cannot write since %s: %v (it retries every %s and heals by itself once the disk has room)",
		e.name, e.since.UTC().Format(time.RFC3339), e.cause, e.every)
}

func (e *unwritableError) Unwrap() []error { return []error{ErrUnwritable, e.cause} }

// Health is nil when the store can write, else the ErrUnwritable error of
// the episode.
func (db *DB) Health() error { return db.episodeErr(false) }

// faultErr returns the episode's error and counts a refused write, or nil.
func (db *DB) faultErr() error { return db.episodeErr(true) }

// episodeErr is the episode's error, or nil; countRefusal counts a refused
// write.
func (db *DB) episodeErr(countRefusal bool) error {
	f := &db.fault
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.cause == nil {
		return nil
	}
	if countRefusal {
		f.refused++
	}
	return &unwritableError{name: db.name, since: f.since, every: db.opts.HealInterval, cause: f.cause}
}

// noteWriteErr starts an episode for a write error that healing can cure.
// It returns the error to give the caller.
func (db *DB) noteWriteErr(err error) error {
	if errors.Is(err, leveldb.ErrClosed) || isLevelDBCorrupt(err) || errors.Is(err, ErrUnwritable) {
		return err
	}
	return db.startEpisode(err)
}

// startEpisode starts an episode caused by err (if none runs): writes fail
// and the healer reopens LevelDB until it can write. It returns the error
// to give the caller.
func (db *DB) startEpisode(err error) error {
	f := &db.fault
	f.mu.Lock()
	if f.cause == nil {
		f.cause, f.since, f.refused = err, time.Now(), 0
		f.holdLocked(wakewheel.Alert{Time: f.since, Code: "store_write_failed", Key: db.name,
			Message: fmt.Sprintf("the store cannot write: %v; writes fail until it heals (it retries every %s)", err, db.opts.HealInterval)})
		signal(f.kick)
	}
	e := &unwritableError{name: db.name, since: f.since, every: db.opts.HealInterval, cause: f.cause}
	f.mu.Unlock()
	return e
}

func (f *fault) holdLocked(a wakewheel.Alert) {
	if len(f.held) >= maxHeldAlerts {
		f.dropped++
		return
	}
	a.Seq = 0
	f.held = append(f.held, a)
}

// holdAlert keeps a in memory if the store is in a fault; it reports
// whether it did.
func (db *DB) holdAlert(a wakewheel.Alert) bool {
	f := &db.fault
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.cause == nil {
		return false
	}
	f.holdLocked(a)
	return true
}

// heldAlerts returns a copy of the alerts held in memory.
func (db *DB) heldAlerts() []wakewheel.Alert {
	f := &db.fault
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]wakewheel.Alert(nil), f.held...)
}

// healer tries to heal while the DB is in a fault.
func (db *DB) healer() {
	defer db.wg.Done()
	interval := db.opts.HealInterval
	for {
		select {
		case <-db.fault.kick:
		case <-db.quit:
			return
		}
		for db.Health() != nil {
			select {
			case <-time.After(interval):
			case <-db.quit:
				return
			}
			db.heal()
		}
	}
}

// heal tries once to reopen LevelDB; it reports whether the DB can write.
func (db *DB) heal() bool {
	if err := db.probe(); err != nil {
		db.healFailed(err)
		return false
	}
	if !db.drainReads() {
		db.healFailed(errors.New("reads did not pause for the reopen; retrying"))
		return false
	}
	db.wmu.Lock()
	ok := db.reopenLocked()
	db.wmu.Unlock()
	db.rmu.Unlock()
	return ok
}

// drainReads holds new reads back and waits, at most drainWait, for those
// in flight to end. It returns true holding rmu with no read inside; on
// false new reads go on (a read nested in a Scan callback that waits
// behind the drain is let through that way, never deadlocked).
func (db *DB) drainReads() bool {
	db.rmu.Lock()
	db.draining = true
	deadline := time.Now().Add(drainWait)
	for db.readers > 0 && time.Now().Before(deadline) {
		db.rmu.Unlock()
		time.Sleep(time.Millisecond)
		db.rmu.Lock()
	}
	db.draining = false
	db.rcond.Broadcast()
	if db.readers > 0 {
		db.rmu.Unlock()
		return false
	}
	return true
}

// drainWait bounds how long a heal holds new reads back.
const drainWait = 200 * time.Millisecond

// reopenLocked closes and reopens LevelDB. The caller holds rmu with no
// reader inside, and wmu.
func (db *DB) reopenLocked() bool {
	if db.ldb != nil {
		_ = db.ldb.Close()
		db.ldb = nil
	}
	ldb, note, err := db.reopen()
	if err != nil {
		db.healFailed(fmt.Errorf("reopen: %w", err))
		return false
	}
	db.ldb = ldb
	if err := db.loadSeqs(); err != nil {
		db.healFailed(err)
		return false
	}
	if v, err := ldb.Get([]byte(syncMarkKey), nil); err == nil && len(v) == 8 {
		db.syncMarks = max(db.syncMarks, binary.BigEndian.Uint64(v))
	}
	f := &db.fault
	f.mu.Lock()
	now := time.Now()
	msg := fmt.Sprintf("the store writes again: it could not from %s to %s (%s; %d writes refused): %v",
		f.since.UTC().Format(time.RFC3339), now.UTC().Format(time.RFC3339), now.Sub(f.since).Round(time.Millisecond), f.refused, f.cause)
	if note != "" {
		msg += "; on reopening it " + note
	}
	db.wb.mu.Lock()
	if errors.Is(db.wb.err, ErrUnwritable) {
		db.wb.err = nil
		msg += "; deadline changes written behind during the episode were dropped (the engine derives them again)"
	}
	db.wb.mu.Unlock()
	if f.dropped > 0 {
		msg += fmt.Sprintf("; %d alerts of the episode were not kept (more than %d)", f.dropped, maxHeldAlerts)
	}
	held := append(f.held, wakewheel.Alert{Time: now, Code: "store_healed", Key: db.name, Message: msg})
	b := new(leveldb.Batch)
	first, next := db.alertFirst, db.alertNext
	for _, a := range held {
		a.Seq = next
		first = appendTrimmed(b, alertPrefix, first, next, mustJSON(a), db.opts.AlertCap)
		next++
	}
	if err := ldb.Write(b, &opt.WriteOptions{Sync: true}); err != nil {
		f.mu.Unlock()
		db.healFailed(fmt.Errorf("writing the episode's alerts: %w", err))
		return false
	}
	db.alertFirst, db.alertNext = first, next
	db.alertsLogged.Store(true)
	f.cause, f.last, f.held, f.dropped, f.refused = nil, nil, nil, 0, 0
	f.mu.Unlock()
	return true
}

// reopen opens LevelDB again on the DB's storage.
func (db *DB) reopen() (*leveldb.DB, string, error) {
	db.loadPool = false // a reopen drops the load's buffer pool (load_buffers.go)
	if db.dir != "" {
		return openStrict(db.dir, db.stor, false)
	}
	ldb, err := leveldb.Open(db.stor, strictOptions())
	return ldb, "", err
}

func (db *DB) healFailed(err error) {
	db.fault.mu.Lock()
	db.fault.last = err
	db.fault.mu.Unlock()
}

// probe proves the store's directory has room for a reopen: the journals'
// size plus healMargin, written and fsynced. A store on a storage has no
// directory to probe.
func (db *DB) probe() error {
	if db.dir == "" {
		return nil
	}
	need := int64(healMargin)
	logs, _ := filepath.Glob(filepath.Join(db.dir, "*.log"))
	for _, n := range logs {
		if fi, err := os.Stat(n); err == nil {
			need += fi.Size()
		}
	}
	name := filepath.Join(db.dir, "WAKEWHEEL-PROBE")
	f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	defer os.Remove(name)
	buf := make([]byte, 64<<10)
	for n := int64(0); n < need; n += int64(len(buf)) {
		if _, err := f.Write(buf); err != nil {
			f.Close()
			return err
		}
	}
	return errors.Join(f.Sync(), f.Close())
}

// readHandle admits a read and returns the current handle; the caller
// calls readDone when it no longer uses it. While the store is reopening
// after a failed heal there is no handle: the error says why.
func (db *DB) readHandle() (*leveldb.DB, error) {
	db.rmu.Lock()
	defer db.rmu.Unlock()
	for db.draining {
		db.rcond.Wait()
	}
	if db.ldb == nil {
		if err := db.Health(); err != nil {
			return nil, err
		}
		return nil, ErrClosed
	}
	db.readers++
	return db.ldb, nil
}

func (db *DB) readDone() {
	db.rmu.Lock()
	db.readers--
	db.rmu.Unlock()
}

// mustJSON encodes a record type that always encodes.
func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}
