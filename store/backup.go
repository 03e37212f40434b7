package store

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/syndtr/goleveldb/leveldb"
	"github.com/syndtr/goleveldb/leveldb/opt"
)

// Backups. Backup copies a consistent snapshot of a live store into a new
// store directory: it flushes the write-behind buffer, takes a LevelDB
// snapshot (one point of the store's history: every batch before it, none
// after), and writes every record of it into a fresh store beside the
// target, renamed into place only once complete and synced. The result is
// an ordinary store: Open (the daemon's --store) reads it as it is, and
// Restore copies it into place. Writers are not stopped while it copies.

// Backup writes a snapshot of db into the new directory dir and returns
// how many records it holds. dir must not exist.
func (db *DB) Backup(dir string) (int, error) {
	if !filepath.IsAbs(dir) {
		return 0, fmt.Errorf("store: backup: %q is not an absolute path", dir)
	}
	if _, err := os.Lstat(dir); err == nil {
		return 0, fmt.Errorf("store: backup: %s already exists; choose a new name", dir)
	}
	if err := db.gate.enter(); err != nil {
		return 0, err
	}
	defer db.gate.leave()
	if err := db.flushPending(); err != nil {
		return 0, db.wrap("backup", err)
	}
	ldb, err := db.readHandle()
	if err != nil {
		return 0, db.wrap("backup", err)
	}
	defer db.readDone()
	snap, err := ldb.GetSnapshot()
	if err != nil {
		return 0, db.wrap("backup", err)
	}
	defer snap.Release()
	tmp := dir + ".partial"
	if err := os.RemoveAll(tmp); err != nil {
		return 0, fmt.Errorf("store: backup: %w", err)
	}
	n, err := copySnapshot(snap, tmp)
	if err != nil {
		os.RemoveAll(tmp)
		return 0, fmt.Errorf("store: backup to %s: %w", dir, err)
	}
	if err := os.Rename(tmp, dir); err != nil {
		os.RemoveAll(tmp)
		return 0, fmt.Errorf("store: backup to %s: %w", dir, err)
	}
	return n, nil
}

func copySnapshot(snap *leveldb.Snapshot, dir string) (n int, err error) {
	stor, err := openPrivate(dir)
	if err != nil {
		return 0, err
	}
	defer func() { err = errors.Join(err, stor.Close()) }()
	out, err := leveldb.Open(stor, strictOptions())
	if err != nil {
		return 0, err
	}
	defer func() { err = errors.Join(err, out.Close()) }()
	it := snap.NewIterator(nil, &opt.ReadOptions{DontFillCache: true})
	defer it.Release()
	b := new(leveldb.Batch)
	for it.Next() {
		if string(it.Key()) == syncMarkKey {
			continue // the copy counts its own synced batches
		}
		b.Put(it.Key(), it.Value())
		n++
		if b.Len() >= 1024 {
			if err := out.Write(b, nil); err != nil {
				return n, err
			}
			b.Reset()
		}
	}
	if err := it.Error(); err != nil {
		return n, err
	}
	return n, out.Write(b, &opt.WriteOptions{Sync: true})
}

// Restore replaces the store in dir with the backup in from (a directory
// written by Backup), after checking that the backup opens and reads
// whole. The store it replaces is kept as dir.replaced-<suffix>, unless
// dir did not exist. No daemon may run on dir.
func Restore(from, dir, suffix string) (kept string, err error) {
	check, err := Open(from, Options{})
	if err != nil {
		return "", fmt.Errorf("store: restore from %s: %w", from, err)
	}
	if err := check.Close(); err != nil {
		return "", fmt.Errorf("store: restore from %s: %w", from, err)
	}
	tmp := dir + ".restore"
	if err := os.RemoveAll(tmp); err != nil {
		return "", fmt.Errorf("store: restore: %w", err)
	}
	if err := CopyAside(from, tmp); err != nil {
		return "", err
	}
	os.Remove(filepath.Join(tmp, WitnessFile)) // the copy starts its own count
	if _, err := os.Stat(dir); err == nil {
		kept = dir + ".replaced-" + suffix
		if err := CopyAside(dir, kept); err != nil { // also proves no daemon holds it
			return "", err
		}
		if err := os.RemoveAll(dir); err != nil {
			return "", fmt.Errorf("store: restore: %w", err)
		}
	}
	if err := os.Rename(tmp, dir); err != nil {
		return kept, fmt.Errorf("store: restore: the restored store is in %s: %w", tmp, err)
	}
	return kept, nil
}
