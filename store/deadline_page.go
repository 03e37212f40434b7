package store

import (
	"bytes"
	"runtime"
	"slices"
	"strings"

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
// yet (their record is retired with the action's fire record).
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
// slice instead of a new one of limit+1 deadlines (~100 KB at 1,000) each
// time, which was a third of a listing's garbage.
func (db *DB) AppendDeadlinePage(dst []deadlines.Deadline, prefix, after string, limit int) (_ []deadlines.Deadline, more bool, err error) {
	if limit <= 0 {
		return dst[:0], false, nil
	}
	if err := db.gate.enter(); err != nil {
		return nil, false, err
	}
	defer db.gate.leave()
	defer catchLevelDBPanic(db.name, &err)

	inRange := func(k string) bool { return strings.HasPrefix(k, prefix) && k > after }
	var over []overlayEntry
	ldb, err := db.readHandle() // before wmu: the healer takes them in this order
	if err != nil {
		return nil, false, err
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
		return nil, false, db.wrap("deadline page", err)
	}
	defer snap.Release()
	slices.SortFunc(over, func(a, b overlayEntry) int { return strings.Compare(a.key, b.key) })

	rng := util.BytesPrefix(deadlineKey(nil, prefix))
	if after >= prefix {
		rng.Start = append(deadlineKey(nil, after), 0) // the first key after the cursor
	}
	it := snap.NewIterator(rng, &opt.ReadOptions{DontFillCache: true})
	defer it.Release()

	var dec deadlineDecoder
	out := dst[:0]
	if cap(out) == 0 {
		out = make([]deadlines.Deadline, 0, min(limit, 1024)+1)
	}
	stored := it.Next()
	for len(out) <= limit {
		var d deadlines.Deadline
		var err error
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
			d, err = dec.decode(deadlineKey(nil, o.key), o.val)
		case stored:
			d, err = dec.decode(it.Key(), it.Value()) // before Next reuses them
			stored = it.Next()
		default:
			return out, false, db.wrap("deadline page", it.Error())
		}
		if err != nil {
			return nil, false, db.wrap("deadline page", err)
		}
		out = append(out, d)
		if len(out)%pageYieldEvery == 0 {
			runtime.Gosched()
		}
	}
	return out[:limit], true, db.wrap("deadline page", it.Error())
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
