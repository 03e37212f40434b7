package store

import (
	"encoding/binary"
	"sync"
	"time"

	"github.com/syndtr/goleveldb/leveldb"

	"github.com/wakewheel/wakewheel/deadlines"
)

// Grouped synced commits. Every synced write (deadlines, generic records)
// is a request to one committer goroutine. While it waits for an fsync, new
// requests queue on the channel; it then takes all of them at once and
// commits them as one synced batch, in arrival order. A caller returns only
// after the batch holding its request is durable. An fsync costs about the
// same for one record as for hundreds, so concurrent callers share it.

// maxSyncGroup bounds the requests of one synced batch.
const maxSyncGroup = 1024

type rawOp struct {
	key, val []byte
	del      bool
}

type syncReq struct {
	ops  []rawOp
	all  bool     // also make the whole write-behind buffer durable (Sync)
	one  [1]rawOp // backs ops for single-record requests
	buf  []byte   // backs the key and value of one
	done chan error
}

// syncReqs recycles requests: once its caller has received from done, the
// committer no longer touches a request.
var syncReqs = sync.Pool{New: func() any { return &syncReq{done: make(chan error, 1)} }}

// oneOp returns a request for a single record: the key is prefix+key,
// and the value is what encode appends (nothing for a delete).
func oneOp(prefix, key string, del bool, encode func([]byte) []byte) *syncReq {
	req := syncReqs.Get().(*syncReq)
	b := append(append(req.buf[:0], prefix...), key...)
	n := len(b)
	if !del {
		b = encode(b)
	}
	req.buf = b
	req.one[0] = rawOp{key: b[:n:n], val: b[n:], del: del}
	req.ops = req.one[:]
	return req
}

// commitSync writes ops as part of a grouped synced batch. The caller is
// inside the gate, so the committer is running.
func (db *DB) commitSync(ops []rawOp) error {
	req := syncReqs.Get().(*syncReq)
	req.ops = ops
	return db.commit(req)
}

// commit sends req to the committer, waits, and recycles req.
func (db *DB) commit(req *syncReq) error {
	var err error
	select {
	case db.syncC <- req:
		err = <-req.done
	case <-db.quit:
		err = ErrClosed
	}
	req.ops, req.one[0] = nil, rawOp{}
	if cap(req.buf) <= 4096 {
		syncReqs.Put(req)
	}
	return err
}

func (db *DB) committer() {
	defer db.wg.Done()
	group := make([]*syncReq, 0, 64)
	for {
		select {
		case req := <-db.syncC:
			group = append(group, req)
		case <-db.quit:
			return
		}
	gather:
		for len(group) < maxSyncGroup {
			select {
			case req := <-db.syncC:
				group = append(group, req)
			default:
				break gather
			}
		}
		err := db.commitGroup(group)
		for _, req := range group {
			req.done <- err
		}
		clear(group)
		group = group[:0]
	}
}

func (db *DB) commitGroup(group []*syncReq) error {
	b := &db.syncBatch // the committer's own
	b.Reset()
	all := false
	for _, req := range group {
		all = all || req.all
	}
	db.wmu.Lock()
	defer db.wmu.Unlock()
	if all {
		// The buffer goes first: the group's own records were queued after
		// it and win.
		db.appendPendingLocked(b)
	}
	for _, req := range group {
		appendOps(b, req.ops)
	}
	// Every synced batch carries the next sync mark: it makes the batch
	// non-empty (so LevelDB fsyncs even when Sync found nothing pending),
	// and the witness names it once the batch is durable (integrity.go).
	db.syncMarks++
	b.Put([]byte(syncMarkKey), binary.BigEndian.AppendUint64(nil, db.syncMarks))
	defer func() {
		if cap(b.Dump()) > maxKeptFlushBatch {
			*b = leveldb.Batch{}
		}
	}()
	t := time.Now()
	err := db.writeLocked(b, true)
	db.syncNanos.Add(int64(time.Since(t)))
	if err != nil {
		return err
	}
	db.syncedWrites.Add(uint64(len(group)))
	if err := db.wit.write(db.syncMarks); err != nil {
		// The batch is durable; only the witness lags, which can hide a
		// later loss but never invents one.
		db.witnessErrs.Add(1)
	}
	return nil
}

func appendOps(b *leveldb.Batch, ops []rawOp) {
	for _, op := range ops {
		if op.del {
			b.Delete(op.key)
		} else {
			b.Put(op.key, op.val)
		}
	}
}

// PutDeadlineSync writes d durably (fsynced) before it returns, sharing the
// fsync with concurrent synced writes. It supersedes a pending write-behind
// change of the same key.
func (db *DB) PutDeadlineSync(d deadlines.Deadline) error {
	if err := db.gate.enter(); err != nil {
		return err
	}
	defer db.gate.leave()
	db.wb.dropKey(d.Key)
	req := oneOp(deadlinePrefix, d.Key, false, func(b []byte) []byte { return appendDeadline(b, d) })
	if err := db.commit(req); err != nil {
		return db.wrap("put deadline "+d.Key, err)
	}
	return nil
}

// DeleteDeadlineSync deletes key durably before it returns, superseding a
// pending write-behind change of the same key.
func (db *DB) DeleteDeadlineSync(key string) error {
	if err := db.gate.enter(); err != nil {
		return err
	}
	defer db.gate.leave()
	db.wb.dropKey(key)
	if err := db.commit(oneOp(deadlinePrefix, key, true, nil)); err != nil {
		return db.wrap("delete deadline "+key, err)
	}
	return nil
}

// Sync makes every earlier change durable: the write-behind buffer and
// everything LevelDB holds unsynced are fsynced before it returns. It is
// how a caller that wrote behind acknowledges durably; concurrent callers
// share one fsync with each other and with synced writes.
func (db *DB) Sync() error {
	if err := db.gate.enter(); err != nil {
		return err
	}
	defer db.gate.leave()
	req := syncReqs.Get().(*syncReq)
	req.all = true
	defer func() { req.all = false }()
	return db.commit(req)
}
