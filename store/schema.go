package store

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strconv"

	"github.com/syndtr/goleveldb/leveldb"
	"github.com/syndtr/goleveldb/leveldb/comparer"
	"github.com/syndtr/goleveldb/leveldb/opt"
	"github.com/syndtr/goleveldb/leveldb/util"
)

// SchemaVersion is the layout this build writes, and the newest it reads.
// Version 1 is the first: every store written by wakewheel has the record,
// written (synced) when the store is created.
const SchemaVersion = 1

// checkSchema validates the schema version record, or writes it into an
// empty store. A store that holds records but no version record was not
// written by wakewheel as such (the record precedes every other write):
// it is damaged or foreign, and Open refuses it as corrupt rather than
// stamping its own version on someone else's data. Repair stamps it.
func (db *DB) checkSchema() error {
	v, err := db.ldb.Get([]byte(schemaKey), nil)
	if errors.Is(err, leveldb.ErrNotFound) {
		it := db.ldb.NewIterator(nil, nil)
		hasData := it.First()
		it.Release()
		if err := it.Error(); err != nil {
			return db.wrap("open", err)
		}
		if hasData {
			return &corruptError{name: db.name, cause: errors.New("it holds records but no schema version record")}
		}
		return db.wrap("open", db.ldb.Put([]byte(schemaKey), schemaValue(), &opt.WriteOptions{Sync: true}))
	}
	if err != nil {
		return db.wrap("open", err)
	}
	ver, ok := parseSchema(v)
	if !ok {
		return &corruptError{name: db.name, cause: fmt.Errorf("bad schema version record %q", v)}
	}
	if ver > SchemaVersion {
		return fmt.Errorf("%w: store %s has schema version %d, this wakewheel reads versions up to %d; upgrade wakewheel or use another store",
			ErrSchemaTooNew, db.name, ver, SchemaVersion)
	}
	return nil
}

func schemaValue() []byte { return strconv.AppendUint(nil, SchemaVersion, 10) }

func parseSchema(v []byte) (uint64, bool) {
	ver, err := strconv.ParseUint(string(v), 10, 32)
	return ver, err == nil && ver >= 1
}

// Repair recovers the store in dir after corruption: goleveldb rebuilds
// the MANIFEST from the table files that can be read (leveldb.RecoverFile),
// then records that do not decode are deleted and a missing or unreadable
// schema version record is written again. A store of a newer schema is
// left untouched (ErrSchemaTooNew). Records in damaged blocks are lost;
// everything readable is kept. The store must not be open.
func Repair(dir string) error {
	if _, err := os.Stat(dir); err != nil {
		return fmt.Errorf("store: repair %s: %w", dir, err)
	}
	o := levelDBOptions()
	o.Comparer = fullKeyComparer{}
	ldb, err := leveldb.RecoverFile(dir, o)
	if err != nil {
		return fmt.Errorf("store: repair %s: %w", dir, err)
	}
	err = repairRecords(ldb, dir)
	return errors.Join(err, ldb.Close())
}

func repairRecords(ldb *leveldb.DB, dir string) (err error) {
	defer catchLevelDBPanic(dir, &err)
	b := new(leveldb.Batch)
	v, err := ldb.Get([]byte(schemaKey), nil)
	switch {
	case err == nil:
		ver, ok := parseSchema(v)
		if ok && ver > SchemaVersion {
			return fmt.Errorf("%w: store %s has schema version %d; this wakewheel cannot repair it", ErrSchemaTooNew, dir, ver)
		}
		if !ok {
			b.Put([]byte(schemaKey), schemaValue())
		}
	case errors.Is(err, leveldb.ErrNotFound):
		b.Put([]byte(schemaKey), schemaValue())
	default:
		return fmt.Errorf("store: repair %s: %w", dir, err)
	}
	var dec deadlineDecoder
	checks := []struct {
		prefix string
		ok     func(k, v []byte) bool
	}{
		{deadlinePrefix, func(k, v []byte) bool { _, err := dec.decode(k, v); return err == nil }},
		{firePrefix, jsonLogOK(firePrefix)},
		{alertPrefix, jsonLogOK(alertPrefix)},
	}
	for _, c := range checks {
		it := ldb.NewIterator(util.BytesPrefix([]byte(c.prefix)), nil)
		for it.Next() {
			if !c.ok(it.Key(), it.Value()) {
				b.Delete(it.Key())
			}
		}
		it.Release()
		if err := it.Error(); err != nil {
			return fmt.Errorf("store: repair %s: %w", dir, err)
		}
	}
	if err := ldb.Write(b, &opt.WriteOptions{Sync: true}); err != nil {
		return fmt.Errorf("store: repair %s: %w", dir, err)
	}
	return nil
}

func jsonLogOK(prefix string) func(k, v []byte) bool {
	return func(k, v []byte) bool {
		_, ok := parseSeqKey(prefix, k)
		return ok && json.Valid(v) && len(v) > 0 && v[0] == '{'
	}
}

// fullKeyComparer orders keys bytewise under the name of goleveldb's
// default comparer (so it opens the same stores), but never shortens the
// keys of a table's index. goleveldb v1.0.0 rebuilds a damaged table during
// recovery with the user comparer where it needs its internal-key one: the
// shortened index keys are then not internal keys and every later read of
// that table panics. With full keys the rebuilt index stays valid.
type fullKeyComparer struct{}

func (fullKeyComparer) Compare(a, b []byte) int           { return bytes.Compare(a, b) }
func (fullKeyComparer) Name() string                      { return comparer.DefaultComparer.Name() }
func (fullKeyComparer) Separator(dst, a, b []byte) []byte { return nil }
func (fullKeyComparer) Successor(dst, b []byte) []byte    { return nil }
