package store

import (
	"github.com/syndtr/goleveldb/leveldb/opt"
	"github.com/syndtr/goleveldb/leveldb/util"

	"github.com/wakewheel/wakewheel/deadlines"
)

// LoadBatchLen is how many deadlines LoadDeadlineBatches hands over at a
// time: enough that handing a batch to another goroutine costs nothing per
// deadline, few enough that a batch stays in a core's cache.
const LoadBatchLen = 1024

// LoadDeadlines calls fn for every persisted deadline, in key order, after
// flushing the write-behind buffer. An error of fn stops the iteration and
// is returned as is. A record that does not decode stops it with an error
// that wraps ErrCorrupt and names the record's key.
//
// Keys and payloads of the deadlines handed to fn share backing arrays
// (payload capacity cut to length); keeping one keeps its slab of a few
// tens of KiB alive.
func (db *DB) LoadDeadlines(fn func(deadlines.Deadline) error) error {
	return db.LoadDeadlineBatches(func(batch []deadlines.Deadline) ([]deadlines.Deadline, error) {
		for _, d := range batch {
			if err := fn(d); err != nil {
				return nil, err
			}
		}
		return batch[:0], nil
	})
}

// LoadDeadlineBatches is LoadDeadlines a batch of up to LoadBatchLen at a
// time (see LoadDeadlineBatchesWatched).
func (db *DB) LoadDeadlineBatches(fn func(batch []deadlines.Deadline) ([]deadlines.Deadline, error)) error {
	return db.LoadDeadlineBatchesWatched(fn, nil)
}

// LoadDeadlineBatchesWatched is LoadDeadlines a batch of up to LoadBatchLen
// at a time, keeping p up to date as it goes (load_progress.go; p may be
// nil). fn owns the batch it is given and returns the slice the next batch is
// decoded into: an emptied earlier batch, or nil for a new one; so a
// reader may hand batches to another goroutine and take them back.
func (db *DB) LoadDeadlineBatchesWatched(fn func(batch []deadlines.Deadline) ([]deadlines.Deadline, error), p *LoadProgress) (err error) {
	if err := db.gate.enter(); err != nil {
		return err
	}
	defer db.gate.leave()
	defer catchLevelDBPanic(db.name, &err)
	if err := db.flushPending(); err != nil {
		return err
	}
	ldb, err := db.readHandle()
	if err != nil {
		return err
	}
	defer db.readDone()
	it := ldb.NewIterator(util.BytesPrefix([]byte(deadlinePrefix)), &opt.ReadOptions{DontFillCache: true})
	defer it.Release()
	var dec deadlineDecoder
	meter := newLoadMeter(p, ldb)
	batch := make([]deadlines.Deadline, 0, LoadBatchLen)
	for it.Next() {
		d, err := dec.decode(it.Key(), it.Value())
		if err != nil {
			return db.wrap("load deadlines", err)
		}
		batch = append(batch, d)
		meter.saw(it.Key())
		if len(batch) == cap(batch) {
			if batch, err = fn(batch); err != nil {
				return err
			}
			if cap(batch) == 0 {
				batch = make([]deadlines.Deadline, 0, LoadBatchLen)
			}
			batch = batch[:0]
		}
	}
	if err := it.Error(); err != nil {
		return db.wrap("load deadlines", err)
	}
	if len(batch) > 0 {
		if _, err := fn(batch); err != nil {
			return err
		}
	}
	meter.done()
	return nil
}
