package scheduler_test

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"
	"github.com/syndtr/goleveldb/leveldb"
	"github.com/syndtr/goleveldb/leveldb/util"
	"github.com/wakewheel/wakewheel/deadlines"
	"github.com/wakewheel/wakewheel/scheduler"
	"github.com/wakewheel/wakewheel/store"
)

const reloadN = 1_000_000

var (
	reloadOnce sync.Once
	reloadDir  string
	reloadErr  error
)

// reloadStore builds, once per run, a store on disk holding 1M deadlines at
// mixed horizons, as a daemon would leave it.
func reloadStore(b *testing.B) string {
	reloadOnce.Do(func() {
		reloadDir, reloadErr = os.MkdirTemp("", "wakewheel-reload-")
		if reloadErr != nil {
			return
		}
		var db *store.DB
		db, reloadErr = store.Open(filepath.Join(reloadDir, "store"), store.Options{})
		if reloadErr != nil {
			return
		}
		base := time.Now()
		for i := range reloadN {
			db.PutDeadline(deadlines.Deadline{Key: fmt.Sprintf("burst/root-%07d", i), Kind: "burst",
				At: base.Add(time.Duration(i%100_000) * time.Second), Since: base})
		}
		if reloadErr = db.Close(); reloadErr != nil {
			return
		}
		// Settle the store as a long-running daemon leaves it (journal
		// replayed into tables), so both sides read the same files.
		var ldb *leveldb.DB
		if ldb, reloadErr = leveldb.OpenFile(filepath.Join(reloadDir, "store"), nil); reloadErr != nil {
			return
		}
		if reloadErr = ldb.CompactRange(util.Range{}); reloadErr != nil {
			return
		}
		reloadErr = ldb.Close()
	})
	if reloadErr != nil {
		b.Fatal(reloadErr)
	}
	return filepath.Join(reloadDir, "store")
}

// BenchmarkReload1M: a restart's reload of 1M persisted deadlines into the
// engine (decode + wheel insert) against a raw LevelDB iteration over the
// same store, in the same run.
func BenchmarkReload1M(b *testing.B) {
	dir := reloadStore(b)
	b.Run("engine", func(b *testing.B) {
		for b.Loop() {
			db, err := store.Open(dir, store.Options{})
			if err != nil {
				b.Fatal(err)
			}
			eng, err := scheduler.NewEngine(db, scheduler.Options{Logger: zerolog.Nop()}, time.Now())
			if err != nil {
				b.Fatal(err)
			}
			if eng.Len() != reloadN {
				b.Fatalf("reloaded %d, want %d", eng.Len(), reloadN)
			}
			db.Close()
		}
	})
	b.Run("raw-leveldb", func(b *testing.B) {
		for b.Loop() {
			db, err := leveldb.OpenFile(dir, nil)
			if err != nil {
				b.Fatal(err)
			}
			it := db.NewIterator(nil, nil)
			n, bytes := 0, 0
			for it.Next() {
				bytes += len(it.Key()) + len(it.Value())
				n++
			}
			it.Release()
			db.Close()
			if n < reloadN {
				b.Fatalf("iterated %d records", n)
			}
		}
	})
}

func TestMain(m *testing.M) {
	code := m.Run()
	if reloadDir != "" {
		os.RemoveAll(reloadDir)
	}
	os.Exit(code)
}
