package store

import (
	"github.com/syndtr/goleveldb/leveldb/opt"
	"github.com/syndtr/goleveldb/leveldb/util"

	"github.com/wakewheel/wakewheel/deadlines"
)

// loadBatchLen is how many records a batch of a load holds: enough that
// handing a batch to another goroutine costs nothing per record, few
// enough that a batch stays in a core's cache.
const loadBatchLen = 4096

// LoadDeadlines calls fn for every persisted deadline, in key order, after
// flushing the write-behind buffer. An error of fn stops the iteration and
// is returned as is. A record that does not decode stops it with an error
// that wraps ErrCorrupt and names the record's key.
//
// Keys and payloads of the deadlines handed to fn share backing arrays
// (payload capacity cut to length); keeping one keeps its slab of a few
// tens of KiB alive. (A batch's own keys are views of its bytes: each is
// copied into a key slab here, before fn sees it.)
func (db *DB) LoadDeadlines(fn func(deadlines.Deadline) error) error {
	var keys deadlineDecoder
	keep := func(d deadlines.Deadline) error {
		d.Key = keys.keep(d.Key)
		return fn(d)
	}
	return db.LoadDeadlineBatches(func(decode DecodeBatch, _ int) error { return decode(keep) })
}

// A DecodeBatch decodes one batch of a load's deadline records and calls
// fn with each deadline, in key order. An error of fn stops it and is
// returned as is; a record that does not decode stops it with an error
// that wraps ErrCorrupt and names the record's key. The batches of a load
// are decoded one at a time, in the order they came (they share a
// decoder), each once; the load fills the batch again after.
//
// A deadline's Key is a view of the batch's bytes, good only during fn's
// call: a caller that keeps a key copies it (strings.Clone), and one that
// copies what it keeps anyway (the wheel's loader, which holds a key in
// its entry) pays for no copy per record. Payloads share backing arrays,
// as LoadDeadlines says.
type DecodeBatch = func(fn func(deadlines.Deadline) error) error

// LoadDeadlineBatches is LoadDeadlineBatchesWatched without progress.
func (db *DB) LoadDeadlineBatches(fn func(decode DecodeBatch, expect int) error) error {
	return db.LoadDeadlineBatchesWatched(fn, nil)
}

// LoadDeadlineBatchesWatched reads every persisted deadline record once,
// in key order, after flushing the write-behind buffer, with LevelDB's
// checksums checked, and hands them to fn in batches not yet decoded:
// fn gets the batch's DecodeBatch, which checks and decodes it on the
// goroutine that calls it, so a reader can hand its batches to another
// goroutine and read on while that one decodes. expect is the store's
// estimate of how many deadlines the whole load reads, from the on-disk
// size of the records read so far against that of all of them (0 while it
// has none: the first batches of a load, or a store whose records are
// still in the journal's memtable). It keeps p up to date as it goes
// (load_progress.go; p may be nil). An error of fn stops the load and is
// returned as is.
func (db *DB) LoadDeadlineBatchesWatched(fn func(decode DecodeBatch, expect int) error, p *LoadProgress) (err error) {
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
	l := &deadlineLoad{db: db, dec: deadlineDecoder{viewKeys: true}, free: make(chan *deadlineBatch, 8)}
	meter := newLoadMeter(p, ldb)
	b := l.batch()
	for it.Next() {
		k := it.Key()
		b.buf = append(b.buf, k...)
		b.ends = append(b.ends, uint32(len(b.buf)))
		b.buf = append(b.buf, it.Value()...)
		b.ends = append(b.ends, uint32(len(b.buf)))
		meter.saw(k)
		if len(b.ends) == 2*loadBatchLen {
			if err := fn(b.decode, meter.expect); err != nil {
				return err
			}
			b = l.batch()
		}
	}
	if err := it.Error(); err != nil {
		return db.wrap("load deadlines", err)
	}
	if len(b.ends) > 0 {
		if err := fn(b.decode, meter.expect); err != nil {
			return err
		}
	}
	meter.done()
	return nil
}

// deadlineBatch is a run of deadline records as a load read them, keys
// and values back to back, not yet decoded.
type deadlineBatch struct {
	load *deadlineLoad
	buf  []byte
	ends []uint32 // by record: the end of its key in buf, then of its value
}

// deadlineLoad is what the batches of one load share: the decoder (used
// by decode only, one batch at a time) and the batches decoded, for the
// reader to fill again.
type deadlineLoad struct {
	db   *DB
	dec  deadlineDecoder
	free chan *deadlineBatch
}

func (l *deadlineLoad) batch() *deadlineBatch {
	select {
	case b := <-l.free:
		return b
	default:
		return &deadlineBatch{load: l, buf: make([]byte, 0, 64*loadBatchLen), ends: make([]uint32, 0, 2*loadBatchLen)}
	}
}

// decode is the batch's DecodeBatch.
func (b *deadlineBatch) decode(fn func(deadlines.Deadline) error) error {
	l := b.load
	start := uint32(0)
	for r := 0; r < len(b.ends); r += 2 {
		kEnd, vEnd := b.ends[r], b.ends[r+1]
		d, err := l.dec.decode(b.buf[start:kEnd], b.buf[kEnd:vEnd])
		if err != nil {
			return l.db.wrap("load deadlines", err)
		}
		if err := fn(d); err != nil {
			return err
		}
		start = vEnd
	}
	b.buf, b.ends = b.buf[:0], b.ends[:0]
	select {
	case l.free <- b:
	default:
	}
	return nil
}
