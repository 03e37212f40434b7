package scheduler_test

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/rs/zerolog"
	"github.com/syndtr/goleveldb/leveldb"
	"github.com/syndtr/goleveldb/leveldb/opt"
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
// engine, as the daemon does it (the store opened leaving the deadlines'
// checks to the load, the collector at the daemon's reload percent),
// against a raw LevelDB open and iteration of the same records, taking
// turns in the same run. Besides the wall time per reload it reports the
// process's CPU time per reload (cpu-ms/op), which a loaded machine moves
// less. Run the two sub-benchmarks with -count to interleave them:
//
//	go test -run '^$' -bench Reload1M -benchtime 5x -count 3 ./scheduler/
func BenchmarkReload1M(b *testing.B) {
	dir := reloadStore(b)
	b.Run("engine", func(b *testing.B) {
		defer debug.SetGCPercent(debug.SetGCPercent(400))
		cpu := cpuTime()
		for b.Loop() {
			db, err := store.Open(dir, store.Options{LoadChecksDeadlines: true})
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
		b.ReportMetric(float64(cpuTime()-cpu)/float64(b.N)/1e6, "cpu-ms/op")
	})
	b.Run("raw-leveldb", func(b *testing.B) {
		cpu := cpuTime()
		for b.Loop() {
			db, err := leveldb.OpenFile(dir, &opt.Options{ReadOnly: true})
			if err != nil {
				b.Fatal(err)
			}
			it := db.NewIterator(util.BytesPrefix([]byte("d/")), &opt.ReadOptions{DontFillCache: true})
			n, size := 0, 0
			for it.Next() {
				n++
				size += len(it.Key()) + len(it.Value()) // each record's value read too, as a reload reads it
			}
			it.Release()
			db.Close()
			if n != reloadN || size == 0 {
				b.Fatalf("iterated %d records of %d bytes", n, size)
			}
		}
		b.ReportMetric(float64(cpuTime()-cpu)/float64(b.N)/1e6, "cpu-ms/op")
	})
}

// cpuTime is the process's user and system CPU time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func TestMain(m *testing.M) {
	code := m.Run()
	if reloadDir != "" {
		os.RemoveAll(reloadDir)
	}
	os.Exit(code)
}
