package store

import (
	"errors"
	"fmt"

	"github.com/syndtr/goleveldb/leveldb/opt"
)

// A store opened for a load (Options.LoadChecksDeadlines) reads with
// goleveldb's block buffer pool: a load of a million deadlines reads some
// 15,000 table blocks, and without the pool each is a new allocation, so
// a new process faults in some 20 MB more and the load's reader spends a
// tenth more CPU. The pool cannot stay: it drains itself on a 2-second
// ticker for as long as the handle is open, and an idle daemon must not
// wake (strictOptions). goleveldb has no way to close the pool alone, so
// EndLoad reopens the handle without it, which a heal already knows how to
// do: new reads held back, the writers' lock taken, close, open.

// EndLoad ends a store's load: it reopens LevelDB without the block buffer
// pool the load read with, once reads in flight have ended (retrying for
// about loadEndTries × drainWait). Call it once the load is done, beside the
// serving program: it holds reads and writes back for the reopen (a few
// milliseconds). A store opened without LoadChecksDeadlines, or already
// ended, is left alone. If the reopen fails, the store heals as after a
// failed write (heal.go): writes fail with ErrUnwritable and reads with
// its error until a reopen succeeds.
func (db *DB) EndLoad() error {
	if err := db.gate.enter(); err != nil {
		return err
	}
	defer db.gate.leave()
	for range loadEndTries {
		if db.Health() != nil {
			return nil // a heal reopens without the pool
		}
		if !db.drainReads() {
			continue
		}
		err := db.reopenWithoutPool()
		db.rmu.Unlock()
		return err
	}
	return errors.New("store: the load's buffer pool stays: reads did not pause for the reopen")
}

// loadEndTries bounds how many times EndLoad waits for reads to pause.
const loadEndTries = 10

// reopenWithoutPool closes the handle and opens it again without the
// pool. The caller holds rmu with no reader inside.
func (db *DB) reopenWithoutPool() error {
	db.wmu.Lock()
	defer db.wmu.Unlock()
	if !db.loadPool || db.ldb == nil {
		return nil
	}
	if err := db.ldb.Close(); err != nil {
		return fmt.Errorf("store: %s: close after the load: %w", db.name, err)
	}
	db.ldb = nil
	ldb, _, err := db.reopen()
	if err != nil {
		db.startEpisode(fmt.Errorf("reopen after the load: %w", err))
		return fmt.Errorf("store: %s: reopen after the load: %w", db.name, err)
	}
	db.ldb = ldb
	return nil
}

// poolOptions are strictOptions with the block buffer pool if pool.
func poolOptions(pool bool) *opt.Options {
	o := strictOptions()
	o.DisableBufferPool = !pool
	return o
}
