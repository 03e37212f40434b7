package scheduler_test

import (
	"os"
	"runtime"
	"runtime/pprof"
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

func cpuNow() time.Duration {
	var ru [2]int64
	_ = ru
	return 0
}

func BenchmarkZZPhases(b *testing.B) {
	dir := reloadStore(b)
	for range 3 {
		t := time.Now()
		ldb, _ := leveldb.OpenFile(dir, &opt.Options{ReadOnly: true})
		it := ldb.NewIterator(util.BytesPrefix([]byte("d/")), &opt.ReadOptions{DontFillCache: true})
		n := 0
		for it.Next() {
			n++
		}
		it.Release()
		ldb.Close()
		raw := time.Since(t)

		t = time.Now()
		db, _ := store.Open(dir, store.Options{})
		opened := time.Since(t)
		n = 0
		db.LoadDeadlines(func(deadlines.Deadline) error { n++; return nil })
		decode := time.Since(t)
		db.Close()

		runtime.GC()
		f, _ := os.Create("/tmp/reload-eng.prof")
		pprof.StartCPUProfile(f)
		t = time.Now()
		db, _ = store.Open(dir, store.Options{})
		eng, _ := scheduler.NewEngine(db, scheduler.Options{Logger: zerolog.Nop()}, time.Now())
		full := time.Since(t)
		pprof.StopCPUProfile()
		f.Close()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		b.Logf("raw %v open %v open+decode %v engine %v (%.2f×) len %d heap %d MB numgc %d", raw, opened, decode, full, float64(full)/float64(raw), eng.Len(), ms.HeapAlloc>>20, ms.NumGC)
		db.Close()
	}
}
