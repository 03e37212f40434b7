package store

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"github.com/syndtr/goleveldb/leveldb"
	"github.com/syndtr/goleveldb/leveldb/opt"
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

func jsonLogOK(prefix string) func(k, v []byte) bool {
	return func(k, v []byte) bool {
		_, ok := parseSeqKey(prefix, k)
		return ok && json.Valid(v) && len(v) > 0 && v[0] == '{'
	}
}
