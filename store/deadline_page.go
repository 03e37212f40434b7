package store

import (
	"bytes"
	"encoding/binary"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/syndtr/goleveldb/leveldb/opt"
	"github.com/syndtr/goleveldb/leveldb/util"

	"github.com/wakewheel/wakewheel/deadlines"
)

// A page of persisted deadlines, read without the engine: listing a million
// deadlines must not stall the goroutine that fires them. The page is cut
// from one consistent view of the store: a LevelDB snapshot taken together
// with a copy of the write-behind changes it lacks, both under wmu (no
// flush or other write in between). What the store holds is what the wheel
// holds, plus the deadlines that fell due and whose action has not finished
// yet, or whose fire record is still being written (their record is
// retired with the action's fire record).
//
// The cost is O(limit + the write-behind buffer), never O(pending): the
// snapshot is iterated from the cursor, and the buffer holds at most a few
// thousand keys (throttlePendingKeys).

// overlayEntry is one write-behind change inside the page's key range.
type overlayEntry struct {
	key string
	val []byte // a copy; nil for a deletion
	del bool
}

// DeadlinePage returns up to limit persisted deadlines whose key starts with
// prefix and sorts after the cursor after ("" for the first page), in key
// order, and whether more follow. The next page's cursor is the last key
// returned.
func (db *DB) DeadlinePage(prefix, after string, limit int) (_ []deadlines.Deadline, more bool, err error) {
	return db.AppendDeadlinePage(nil, prefix, after, limit)
}

// AppendDeadlinePage is DeadlinePage writing the page into dst[:0] (grown
// when it is too short): a caller that lists page after page reuses one
// slice instead of a new one of limit deadlines (~100 KB at 1,000) each
// time.
func (db *DB) AppendDeadlinePage(dst []deadlines.Deadline, prefix, after string, limit int) (_ []deadlines.Deadline, more bool, err error) {
	out := dst[:0]
	if cap(out) == 0 && limit > 0 {
		out = make([]deadlines.Deadline, 0, min(limit, 1024))
	}
	var dec deadlineDecoder
	more, err = db.pageRecords(prefix, after, limit, func(k, v []byte) error {
		d, err := dec.decode(k, v)
		out = append(out, d)
		return err
	})
	if err != nil {
		return nil, false, err
	}
	return out, more, nil
}

// VisitDeadlinePage reads the page AppendDeadlinePage returns and hands fn
// each of its deadlines as it is read, in key order, and copies nothing:
// key (without the store's prefix) and kind are the stored bytes, valid
// only during the call, and the payload is checked but not read. A page
// of 1,000 written out this way costs no key, no payload and no slice of
// deadlines (~40 KB of garbage a page at a million stored when decoded).
// A record that does not decode ends the page with ErrCorrupt, as
// AppendDeadlinePage does.
func (db *DB) VisitDeadlinePage(prefix, after string, limit int, fn func(key, kind []byte, at, since time.Time)) (more bool, err error) {
	return db.pageRecords(prefix, after, limit, func(k, v []byte) error {
		kind, at, since, err := decodeListed(k, v)
		if err == nil {
			fn(k[len(deadlinePrefix):], kind, at, since)
		}
		return err
	})
}

// pageRecords calls fn with the raw key ("d/<key>") and value of each of
// the page's first limit records, neither of them to be kept past the
// call, and says whether more follow. An error of fn ends the page and is
// returned, wrapped.
func (db *DB) pageRecords(prefix, after string, limit int, fn func(k, v []byte) error) (more bool, err error) {
	if limit <= 0 {
		return false, nil
	}
	if err := db.gate.enter(); err != nil {
		return false, err
	}
	defer db.gate.leave()
	defer catchLevelDBPanic(db.name, &err)

	inRange := func(k string) bool { return strings.HasPrefix(k, prefix) && k > after }
	var over []overlayEntry
	ldb, err := db.readHandle() // before wmu: the healer takes them in this order
	if err != nil {
		return false, err
	}
	defer db.readDone()
	db.wmu.Lock()
	db.wb.mu.Lock()
	for k, e := range db.wb.pending {
		if inRange(k) {
			over = append(over, overlayEntry{key: k, val: bytes.Clone(e.val), del: e.del})
		}
	}
	snap, err := ldb.GetSnapshot()
	db.wb.mu.Unlock()
	db.wmu.Unlock()
	if err != nil {
		return false, db.wrap("deadline page", err)
	}
	defer snap.Release()
	slices.SortFunc(over, func(a, b overlayEntry) int { return strings.Compare(a.key, b.key) })

	rng := util.BytesPrefix(deadlineKey(nil, prefix))
	if after >= prefix {
		rng.Start = append(deadlineKey(nil, after), 0) // the first key after the cursor
	}
	it := snap.NewIterator(rng, &opt.ReadOptions{DontFillCache: true})
	defer it.Release()

	var overKey []byte // the raw key of an overlay entry
	stored := it.Next()
	for n := 0; ; {
		var k, v []byte
		fromStore := false
		switch {
		case len(over) > 0 && (!stored || over[0].key <= string(it.Key()[len(deadlinePrefix):])):
			if stored && over[0].key == string(it.Key()[len(deadlinePrefix):]) {
				stored = it.Next() // the buffered change replaces the stored record
			}
			o := over[0]
			over = over[1:]
			if o.del {
				continue
			}
			overKey = deadlineKey(overKey[:0], o.key)
			k, v = overKey, o.val
		case stored:
			k, v, fromStore = it.Key(), it.Value(), true
		default:
			return false, db.wrap("deadline page", it.Error())
		}
		if n == limit {
			return true, db.wrap("deadline page", it.Error()) // one more: the page is full
		}
		if err := fn(k, v); err != nil {
			return false, db.wrap("deadline page", err)
		}
		if fromStore {
			stored = it.Next() // after fn: Next reuses the key and value's bytes
		}
		if n++; n%pageYieldEvery == 0 {
			runtime.Gosched()
		}
	}
}

// pageYieldEvery is how many deadlines a page reads between yields of the
// processor (runtime.Gosched; 50-100 µs of reading and decoding at a
// million stored on an idle machine; 256 made stretches of 200 µs and more
// at the 90th percentile under load). A page of 1,000 is ~0.4-1 ms of work, most of it
// without a point where the Go scheduler looks at its run queue or its
// timers (LevelDB's block reads are syscalls that return at once): the
// engine's loop, readied by a deadline falling due on this processor, or
// its timer expiring there, would otherwise wait for the whole page. The
// answer's encoding yields likewise (the api package's yieldEvery).
const pageYieldEvery = 128

// decodeListed decodes what a listing prints of the record under the raw
// key k with value v: its kind (v's bytes, not copied) and times. It
// checks the record as deadlineDecoder.decode does, with the same errors,
// but copies no payload and no key.
func decodeListed(k, v []byte) (kind []byte, at, since time.Time, err error) {
	if len(v) < deadlineFixedLen {
		return nil, at, since, badRecord(k, "deadline value too short")
	}
	if v[0] != deadlineV1 {
		return nil, at, since, badRecord(k, "unknown deadline encoding version")
	}
	flags := v[1]
	if flags&^(flagAtZero|flagSinceZero) != 0 {
		return nil, at, since, badRecord(k, "unknown deadline flags")
	}
	kind, rest, ok := lengthPrefixed(v[deadlineFixedLen:])
	if !ok {
		return nil, at, since, badRecord(k, "bad deadline kind")
	}
	if _, rest, ok = lengthPrefixed(rest); !ok || len(rest) != 0 {
		return nil, at, since, badRecord(k, "bad deadline payload")
	}
	if flags&flagAtZero == 0 {
		at = time.Unix(0, int64(binary.BigEndian.Uint64(v[2:10])))
	}
	if flags&flagSinceZero == 0 {
		since = time.Unix(0, int64(binary.BigEndian.Uint64(v[10:18])))
	}
	return kind, at, since, nil
}
