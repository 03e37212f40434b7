package store

import (
	"errors"

	"github.com/syndtr/goleveldb/leveldb"
	"github.com/syndtr/goleveldb/leveldb/util"
)

// Generic namespaced records for the packages that come later (roots,
// backlog, obligations, cursors), stored as "n/<ns>/<key>". A namespace is
// non-empty and has no '/'; a key is any string. Values are opaque bytes.
// A synced write (sync=true) is durable when the call returns and shares
// its fsync with concurrent synced writes; an unsynced one survives a
// process crash but not a power loss.

// Op is one change of an atomic Write: a put of Value, or a delete.
type Op struct {
	NS, Key string
	Value   []byte
	Delete  bool
}

// PutOp returns the Op that sets ns/key to val.
func PutOp(ns, key string, val []byte) Op { return Op{NS: ns, Key: key, Value: val} }

// DeleteOp returns the Op that deletes ns/key.
func DeleteOp(ns, key string) Op { return Op{NS: ns, Key: key, Delete: true} }

// Get returns the value of ns/key, and whether it exists.
func (db *DB) Get(ns, key string) (_ []byte, _ bool, err error) {
	if err := checkNamespace(ns); err != nil {
		return nil, false, err
	}
	if err := db.gate.enter(); err != nil {
		return nil, false, err
	}
	defer db.gate.leave()
	defer catchLevelDBPanic(db.name, &err)
	ldb, err := db.readHandle()
	if err != nil {
		return nil, false, err
	}
	defer db.readDone()
	val, err := ldb.Get(genericKey(ns, key), nil)
	if errors.Is(err, leveldb.ErrNotFound) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, db.wrap("get "+ns+"/"+key, err)
	}
	return val, true, nil
}

// Put sets ns/key to val.
func (db *DB) Put(ns, key string, val []byte, sync bool) error {
	return db.Write(sync, PutOp(ns, key, val))
}

// Delete deletes ns/key; deleting a missing key is not an error.
func (db *DB) Delete(ns, key string, sync bool) error {
	return db.Write(sync, DeleteOp(ns, key))
}

// Write applies ops atomically, in order, as one batch.
func (db *DB) Write(sync bool, ops ...Op) error {
	raw := make([]rawOp, len(ops))
	n := 0
	for _, op := range ops {
		if err := checkNamespace(op.NS); err != nil {
			return err
		}
		n += len(genericPrefix) + len(op.NS) + 1 + len(op.Key)
	}
	keys := make([]byte, 0, n) // every key, one after another
	for i, op := range ops {
		from := len(keys)
		keys = append(append(append(append(keys, genericPrefix...), op.NS...), '/'), op.Key...)
		raw[i] = rawOp{key: keys[from:len(keys):len(keys)], val: op.Value, del: op.Delete}
	}
	if len(raw) == 0 {
		return nil
	}
	if err := db.gate.enter(); err != nil {
		return err
	}
	defer db.gate.leave()
	if sync {
		return db.wrap("write", db.commitSync(raw))
	}
	b := new(leveldb.Batch)
	appendOps(b, raw)
	db.wmu.Lock()
	defer db.wmu.Unlock()
	return db.wrap("write", db.writeLocked(b, false))
}

// Scan calls fn, in key order, for every record of ns whose key starts
// with prefix. fn gets the key without the namespace and its own copy of the
// value. An error of fn stops the scan and is returned as is.
func (db *DB) Scan(ns, prefix string, fn func(key string, val []byte) error) error {
	return db.ScanFrom(ns, prefix, "", fn)
}

// ScanFrom is Scan starting at the first key >= start: a page after a
// cursor costs the page, not every record before it.
func (db *DB) ScanFrom(ns, prefix, start string, fn func(key string, val []byte) error) (err error) {
	if err := checkNamespace(ns); err != nil {
		return err
	}
	if err := db.gate.enter(); err != nil {
		return err
	}
	defer db.gate.leave()
	defer catchLevelDBPanic(db.name, &err)
	ldb, err := db.readHandle()
	if err != nil {
		return err
	}
	defer db.readDone()
	base := genericKey(ns, "")
	rng := util.BytesPrefix(genericKey(ns, prefix))
	if start > prefix {
		rng.Start = genericKey(ns, start)
	}
	it := ldb.NewIterator(rng, nil)
	defer it.Release()
	for it.Next() {
		key := string(it.Key()[len(base):])
		if err := fn(key, append([]byte(nil), it.Value()...)); err != nil {
			return err
		}
	}
	return db.wrap("scan "+ns, it.Error())
}
