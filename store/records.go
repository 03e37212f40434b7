package store

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/syndtr/goleveldb/leveldb"
	"github.com/syndtr/goleveldb/leveldb/iterator"
	"github.com/syndtr/goleveldb/leveldb/util"

	wakewheel "github.com/wakewheel/wakewheel"
)

// Fire history ("f/<seq>") and alert log ("a/<seq>"): JSON values under
// big-endian sequence numbers, so key order is Seq order. Seqs are assigned
// under wmu, increase by one, and are never reused; each log is trimmed
// oldest-first to its cap in the same batch that appends to it.

// loadSeqs finds the oldest and next sequence numbers of both logs.
func (db *DB) loadSeqs() error {
	var err error
	if db.fireFirst, db.fireNext, err = db.seqBounds(firePrefix); err != nil {
		return err
	}
	db.alertFirst, db.alertNext, err = db.seqBounds(alertPrefix)
	db.alertsLogged.Store(db.alertNext > db.alertFirst)
	return err
}

func (db *DB) seqBounds(prefix string) (first, next uint64, err error) {
	it := db.ldb.NewIterator(util.BytesPrefix([]byte(prefix)), nil)
	defer it.Release()
	if !it.First() {
		return 1, 1, db.wrap("open", it.Error())
	}
	first, ok := parseSeqKey(prefix, it.Key())
	if !ok {
		return 0, 0, db.wrap("open", badRecord(it.Key(), "bad sequence key"))
	}
	it.Last()
	last, ok := parseSeqKey(prefix, it.Key())
	if !ok {
		return 0, 0, db.wrap("open", badRecord(it.Key(), "bad sequence key"))
	}
	return first, last + 1, db.wrap("open", it.Error())
}

// appendTrimmed adds the puts and deletes that append seq to a log whose
// oldest kept record is first, trimmed to capacity; it returns the new first.
func appendTrimmed(b *leveldb.Batch, prefix string, first, seq uint64, val []byte, capacity int) uint64 {
	b.Put(seqKey(prefix, seq), val)
	for seq-first+1 > uint64(capacity) {
		b.Delete(seqKey(prefix, first))
		first++
	}
	return first
}

// Complete records that the deadline key fired: in one batch it appends f
// to the fire history (assigning f.Seq) and, unless keep, deletes the
// deadline and cancels its pending write-behind change. The batch is
// written at once, unsynced. It returns f with its Seq.
func (db *DB) Complete(key string, keep bool, f wakewheel.Fire) (wakewheel.Fire, error) {
	done := []wakewheel.Finished{{Key: key, Keep: keep, Fire: f}}
	if err := db.CompleteAll(done); err != nil {
		return wakewheel.Fire{}, err
	}
	return done[0].Fire, nil
}

// CompleteAll records finished runs as Complete does, in their order and
// in one batch: one journal write for all of them. It sets each one's
// Fire.Seq. On an error none of them is recorded.
func (db *DB) CompleteAll(done []wakewheel.Finished) error {
	if len(done) == 0 {
		return nil
	}
	if err := db.gate.enter(); err != nil {
		return err
	}
	defer db.gate.leave()
	db.wmu.Lock()
	defer db.wmu.Unlock()
	b := &db.doneBatch // a drain's records are a few kilobytes a batch
	b.Reset()
	first, seq := db.fireFirst, db.fireNext
	for i := range done {
		d := &done[i]
		d.Fire.Seq = seq
		val, err := json.Marshal(d.Fire)
		if err != nil {
			return db.wrap(completing(done), err)
		}
		first = appendTrimmed(b, firePrefix, first, seq, val, db.opts.FireCap)
		seq++
		if !d.Keep {
			b.Delete(deadlineKey(nil, d.Key))
		}
	}
	if err := db.writeLocked(b, false); err != nil {
		return db.wrap(completing(done), err)
	}
	for _, d := range done { // after the write: a failed one leaves the changes queued
		if !d.Keep {
			db.wb.dropKey(d.Key)
		}
	}
	db.fireFirst, db.fireNext = first, seq
	return nil
}

// completing names the records of a failed CompleteAll in its error.
func completing(done []wakewheel.Finished) string {
	if len(done) == 1 {
		return "complete " + done[0].Key
	}
	return fmt.Sprintf("complete %s and %d more", done[0].Key, len(done)-1)
}

// Fires returns up to limit fires with Seq > afterSeq, ascending by Seq.
// A limit <= 0 means all of them.
func (db *DB) Fires(afterSeq uint64, limit int) (_ []wakewheel.Fire, err error) {
	if err := db.gate.enter(); err != nil {
		return nil, err
	}
	defer db.gate.leave()
	defer catchLevelDBPanic(db.name, &err)
	if afterSeq == ^uint64(0) {
		return nil, nil
	}
	r := util.BytesPrefix([]byte(firePrefix))
	r.Start = seqKey(firePrefix, afterSeq+1)
	ldb, err := db.readHandle()
	if err != nil {
		return nil, err
	}
	defer db.readDone()
	it := ldb.NewIterator(r, nil)
	defer it.Release()
	var fires []wakewheel.Fire
	for (limit <= 0 || len(fires) < limit) && it.Next() {
		var f wakewheel.Fire
		if err := decodeLogRecord(it, firePrefix, &f.Seq, &f); err != nil {
			return nil, db.wrap("fires", err)
		}
		fires = append(fires, f)
	}
	return fires, db.wrap("fires", it.Error())
}

// LastFires returns the newest limit fires (all if limit <= 0), oldest
// first and newest last.
func (db *DB) LastFires(limit int) (_ []wakewheel.Fire, err error) {
	if err := db.gate.enter(); err != nil {
		return nil, err
	}
	defer db.gate.leave()
	defer catchLevelDBPanic(db.name, &err)
	ldb, err := db.readHandle() // not db.ldb: a heal or EndLoad may swap it
	if err != nil {
		return nil, err
	}
	defer db.readDone()
	it := ldb.NewIterator(util.BytesPrefix([]byte(firePrefix)), nil)
	defer it.Release()
	fires, err := newestRecords(it, firePrefix, limit, func(f *wakewheel.Fire) *uint64 { return &f.Seq })
	if err != nil {
		return nil, db.wrap("fires", err)
	}
	return fires, nil
}

// AddAlert appends a to the alert log (assigning a.Seq), trimming the log to
// AlertCap oldest-first in the same batch, written at once, unsynced. While
// the store cannot write, the alert is held in memory (returned with Seq 0,
// listed by Alerts) and written when the store heals (heal.go).
func (db *DB) AddAlert(a wakewheel.Alert) (wakewheel.Alert, error) {
	if err := db.gate.enter(); err != nil {
		return wakewheel.Alert{}, err
	}
	defer db.gate.leave()
	db.wmu.Lock()
	defer db.wmu.Unlock()
	a.Seq = db.alertNext
	val, err := json.Marshal(a)
	if err != nil {
		return wakewheel.Alert{}, db.wrap("add alert", err)
	}
	b := new(leveldb.Batch)
	first := appendTrimmed(b, alertPrefix, db.alertFirst, a.Seq, val, db.opts.AlertCap)
	if err := db.writeLocked(b, false); err != nil {
		if errors.Is(err, ErrUnwritable) && db.holdAlert(a) {
			// Held in memory (Seq 0), written when the store heals.
			a.Seq = 0
			return a, nil
		}
		return wakewheel.Alert{}, db.wrap("add alert", err)
	}
	db.alertFirst, db.alertNext = first, a.Seq+1
	db.alertsLogged.Store(true)
	return a, nil
}

// Alerts returns the newest limit alerts (all if limit <= 0), oldest first
// and newest last.
func (db *DB) Alerts(limit int) (_ []wakewheel.Alert, err error) {
	if err := db.gate.enter(); err != nil {
		return nil, err
	}
	defer db.gate.leave()
	defer catchLevelDBPanic(db.name, &err)
	held := db.heldAlerts()
	if limit > 0 && len(held) >= limit {
		return held[len(held)-limit:], nil
	}
	if !db.alertsLogged.Load() {
		return held, nil // an empty log: ~16 µs and ~9 KB of iterator saved
	}
	ldb, err := db.readHandle()
	if err != nil {
		return held, nil
	}
	defer db.readDone()
	it := ldb.NewIterator(util.BytesPrefix([]byte(alertPrefix)), nil)
	defer it.Release()
	if limit > 0 {
		limit -= len(held)
	}
	alerts, err := newestRecords(it, alertPrefix, limit, func(a *wakewheel.Alert) *uint64 { return &a.Seq })
	if err != nil {
		return nil, db.wrap("alerts", err)
	}
	return append(alerts, held...), nil
}

// newestRecords reads the newest limit records of a log (all if limit <=
// 0) from it, a log's iterator, and returns them oldest first; seq names
// the field a record's sequence number goes in.
func newestRecords[T any](it iterator.Iterator, prefix string, limit int, seq func(*T) *uint64) ([]T, error) {
	var out []T
	for ok := it.Last(); ok && (limit <= 0 || len(out) < limit); ok = it.Prev() {
		var v T
		if err := decodeLogRecord(it, prefix, seq(&v), &v); err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	if err := it.Error(); err != nil {
		return nil, err
	}
	slices.Reverse(out)
	return out, nil
}

// decodeLogRecord decodes the JSON record at it into v and sets *seq from
// the key, which is authoritative.
func decodeLogRecord(it iterator.Iterator, prefix string, seq *uint64, v any) error {
	s, ok := parseSeqKey(prefix, it.Key())
	if !ok {
		return badRecord(it.Key(), "bad sequence key")
	}
	if err := json.Unmarshal(it.Value(), v); err != nil {
		return badRecord(it.Key(), err.Error())
	}
	*seq = s
	return nil
}
