package store

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"

	"github.com/syndtr/goleveldb/leveldb"
	lderrors "github.com/syndtr/goleveldb/leveldb/errors"
	"github.com/syndtr/goleveldb/leveldb/opt"
	"github.com/syndtr/goleveldb/leveldb/storage"
	"github.com/syndtr/goleveldb/leveldb/util"
)

// Detecting damage. goleveldb by default drops a damaged journal chunk
// (and the acknowledged writes in it) on open, and reads only the blocks a
// lookup touches. A store here is opened strictly instead: every checksum
// of the MANIFEST, the journal and the tables must hold, and Open reads
// every table block once (or leaves the deadlines' blocks to the load that
// follows: Options.LoadChecksDeadlines). What a strict open cannot see — the journal cut
// exactly at a record boundary, which looks like writes that never
// happened — the sync witness catches:
//
// Every synced batch carries the sync mark v/sync, counting up. After the
// batch is durable, and before its callers are answered, the committer
// writes the mark to the witness file beside the store (WitnessFile; a
// plain write, no fsync of its own). So the witness never names a mark that
// was not durable first: after a process crash it names the last
// acknowledged synced batch, after a power loss at most that. Open refuses
// a store whose newest mark is older than its witness: acknowledged writes
// are missing.
//
// One damage is not refused: a torn tail of the newest journal (a crash or
// power loss in the middle of a write) whose intact part already holds the
// witness's mark. The torn write was never acknowledged; Open drops it and
// says so in OpenNotes.

// WitnessFile is the name of the sync witness in a store directory.
const WitnessFile = "WAKEWHEEL-SYNCED"

// strictOptions: every strictness goleveldb has. StrictRecovery only
// matters to its Recover, which this package does not use.
//
// DisableBufferPool: goleveldb's block buffer pool drains itself on a
// 2-second ticker for the store's whole life, which made an idle daemon wake
// up every 2 s; without it a table read allocates its block buffer. Only a
// store opened for a load keeps the pool until EndLoad (load_buffers.go).
//
// DisableBlockCache: with a block cache goleveldb keeps no table's index
// block of its own and reads it through the cache, and the reads that must
// not fill it (a listing's pages, the load, a backup) read it again every
// time: at a million deadlines that was ~75 KB of a page's ~195 KB of
// garbage. Without the cache every open table keeps its index block (some
// 20-40 KB per 2 MB table, read once), and nothing this store reads often
// was served from the cache (pages and loads never filled it).
func strictOptions() *opt.Options {
	return &opt.Options{Strict: opt.StrictAll, DisableBufferPool: true, DisableBlockCache: true}
}

// witness is the open witness file (nil for a store on a storage).
type witness struct{ f *os.File }

func openWitness(dir string) (*witness, error) {
	f, err := os.OpenFile(filepath.Join(dir, WitnessFile), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	return &witness{f: f}, nil
}

func witnessBytes(mark uint64) []byte {
	b := binary.BigEndian.AppendUint64(make([]byte, 0, 12), mark)
	return binary.BigEndian.AppendUint32(b, crc32.ChecksumIEEE(b))
}

// write records that mark is durable.
func (w *witness) write(mark uint64) error {
	if w == nil {
		return nil
	}
	_, err := w.f.WriteAt(witnessBytes(mark), 0)
	return err
}

func (w *witness) close() error {
	if w == nil {
		return nil
	}
	return w.f.Close()
}

// readWitness returns the mark in dir's witness file. A missing, short or
// damaged witness proves nothing and reads as absent.
func readWitness(dir string) (uint64, bool) {
	b, err := os.ReadFile(filepath.Join(dir, WitnessFile))
	if err != nil || len(b) < 12 {
		return 0, false
	}
	if crc32.ChecksumIEEE(b[:8]) != binary.BigEndian.Uint32(b[8:12]) {
		return 0, false
	}
	return binary.BigEndian.Uint64(b), true
}

// openStrict opens the LevelDB in dir strictly. A damaged newest journal
// whose damage is only a torn tail after the witness's mark is opened
// without journal strictness, and the returned note says what was dropped.
func openStrict(dir string, stor storage.Storage, pool bool) (*leveldb.DB, string, error) {
	ldb, err := leveldb.Open(stor, poolOptions(pool))
	if err == nil {
		return ldb, "", nil
	}
	var ce *lderrors.ErrCorrupted
	if !errors.As(err, &ce) || ce.Fd.Type != storage.TypeJournal {
		return nil, "", err
	}
	dropped, ok := tornTail(dir, stor, ce.Fd)
	if !ok {
		return nil, "", err
	}
	o := poolOptions(pool)
	o.Strict &^= opt.StrictJournal
	ldb, err2 := leveldb.Open(stor, o)
	if err2 != nil {
		return nil, "", err2
	}
	return ldb, fmt.Sprintf("dropped a torn journal tail (%d bytes) written after the last acknowledged write: a crash or power loss interrupted a write that was never acknowledged", dropped), nil
}

// tornTail reports whether the damage of journal fd is a torn tail that
// loses nothing acknowledged: fd is the newest journal, everything damaged
// comes after its last intact batch, and the store read without that tail
// (opened read-only, which changes nothing) still holds the witness's mark.
func tornTail(dir string, stor storage.Storage, fd storage.FileDesc) (uint64, bool) {
	mark, ok := readWitness(dir)
	if !ok {
		return 0, false
	}
	names, _ := filepath.Glob(filepath.Join(dir, "*.log"))
	for _, n := range names {
		var num int64
		if _, err := fmt.Sscanf(filepath.Base(n), "%d.log", &num); err == nil && num > fd.Num {
			return 0, false // not the newest journal
		}
	}
	f, err := os.Open(filepath.Join(dir, fmt.Sprintf("%06d.log", fd.Num)))
	if err != nil {
		return 0, false
	}
	rep, err := salvageJournal(f, func(entry) {})
	f.Close()
	if err != nil || !rep.tailDamaged || rep.midDamaged || rep.lostRecords > 0 {
		return 0, false
	}
	o := strictOptions()
	o.Strict &^= opt.StrictJournal
	o.ReadOnly = true
	ro, err := leveldb.Open(stor, o)
	if err != nil {
		return 0, false
	}
	defer ro.Close()
	v, err := ro.Get([]byte(syncMarkKey), nil)
	if err != nil || len(v) != 8 || binary.BigEndian.Uint64(v) < mark {
		return 0, false
	}
	return rep.droppedBytes, true
}

// verify reads every record once (so every table block's checksum is
// checked) and compares the newest sync mark with the witness. It sets
// db.syncMarks. The caller is prepare, under catchLevelDBPanic. With
// Options.LoadChecksDeadlines the deadline records are left to the load.
func (db *DB) verify(dir string) error {
	ranges := []*util.Range{nil}
	if db.opts.LoadChecksDeadlines {
		d := util.BytesPrefix([]byte(deadlinePrefix))
		ranges = []*util.Range{{Limit: d.Start}, {Start: d.Limit}}
	}
	for _, r := range ranges {
		it := db.ldb.NewIterator(r, &opt.ReadOptions{DontFillCache: true})
		for it.Next() {
		}
		it.Release()
		if err := it.Error(); err != nil {
			return db.wrap("verify", err)
		}
	}
	v, err := db.ldb.Get([]byte(syncMarkKey), nil)
	switch {
	case err == nil && len(v) == 8:
		db.syncMarks = binary.BigEndian.Uint64(v)
	case err == nil:
		return &corruptError{name: db.name, cause: fmt.Errorf("bad sync mark record %q", v)}
	case !errors.Is(err, leveldb.ErrNotFound):
		return db.wrap("verify", err)
	}
	if dir == "" {
		return nil
	}
	if w, ok := readWitness(dir); ok && w > db.syncMarks {
		return &corruptError{name: db.name, cause: fmt.Errorf(
			"acknowledged writes are missing: the last durable write was synced batch %d, the store ends at batch %d (the journal lost its tail)",
			w, db.syncMarks)}
	}
	return nil
}
