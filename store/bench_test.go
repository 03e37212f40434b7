package store

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/syndtr/goleveldb/leveldb"
	"github.com/syndtr/goleveldb/leveldb/opt"
	"github.com/syndtr/goleveldb/leveldb/util"

	"github.com/wakewheel/wakewheel/deadlines"
)

func benchKeys(n int) []string {
	keys := make([]string, n)
	for i := range keys {
		keys[i] = fmt.Sprintf("burst/root-%09d", i)
	}
	return keys
}

// BenchmarkPersistedMutation: the amortised cost of one persisted deadline
// change through the write-behind buffer, flush included (distinct keys, so
// nothing coalesces). Compare with BenchmarkRawLevelDBPut.
func BenchmarkPersistedMutation(b *testing.B) {
	db, err := Open(filepath.Join(b.TempDir(), "store"), Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	keys := benchKeys(b.N)
	d := deadlines.Deadline{Kind: "burst", At: t0, Since: t0}
	before := db.Stats()
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		d.Key = keys[i]
		d.At = t0.Add(time.Duration(i))
		db.PutDeadline(d)
	}
	if err := db.Flush(); err != nil {
		b.Fatal(err)
	}
	b.StopTimer()
	st := db.Stats()
	b.ReportMetric(float64(st.Records-before.Records)/float64(st.Batches-before.Batches), "records/batch")
}

// BenchmarkRawLevelDBPut: one unsynced goleveldb Put per change, the same
// key and value shapes, no store in between.
func BenchmarkRawLevelDBPut(b *testing.B) {
	ldb, err := leveldb.OpenFile(filepath.Join(b.TempDir(), "raw"), nil)
	if err != nil {
		b.Fatal(err)
	}
	defer ldb.Close()
	keys := benchKeys(b.N)
	d := deadlines.Deadline{Kind: "burst", At: t0, Since: t0}
	var key, val []byte
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		d.At = t0.Add(time.Duration(i))
		key = deadlineKey(key[:0], keys[i])
		val = appendDeadline(val[:0], d)
		if err := ldb.Put(key, val, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// The reload store: 1M deadlines, built once per test binary run.
const reloadDeadlines = 1_000_000

var reload struct {
	once sync.Once
	dir  string
	err  error
}

func reloadStore(b *testing.B) string {
	reload.once.Do(func() {
		start := time.Now()
		reload.dir, reload.err = os.MkdirTemp("", "wakewheel-store-bench-")
		if reload.err != nil {
			return
		}
		reload.err = buildReloadStore(filepath.Join(reload.dir, "store"))
		b.Logf("built %d deadlines in %v", reloadDeadlines, time.Since(start).Round(time.Millisecond))
	})
	if reload.err != nil {
		b.Fatal(reload.err)
	}
	return filepath.Join(reload.dir, "store")
}

func buildReloadStore(dir string) error {
	db, err := Open(dir, Options{})
	if err != nil {
		return err
	}
	kinds := []string{"burst", "reconcile", "lease", "redeliver", "absent"}
	for i := range reloadDeadlines {
		d := deadlines.Deadline{
			Key:  fmt.Sprintf("%s/root-%07d", kinds[i%len(kinds)], i),
			Kind: kinds[i%len(kinds)],
			At:   t0.Add(time.Duration(i) * time.Millisecond),
		}
		if i%2 == 0 {
			d.Since = t0
			d.Payload = []byte("/home/dev/repo")
		}
		db.PutDeadline(d)
	}
	if err := db.Flush(); err != nil {
		return err
	}
	if err := db.ldb.CompactRange(util.Range{}); err != nil {
		return err
	}
	return db.Close()
}

func cleanupReloadStore() {
	if reload.dir != "" {
		os.RemoveAll(reload.dir)
	}
}

// BenchmarkReload: reading back 1M persisted deadlines. store decodes every
// record into a deadlines.Deadline (key string included); raw is a bare
// goleveldb iterator over the same records touching Key and Value.
func BenchmarkReload(b *testing.B) {
	dir := reloadStore(b)
	b.Run("store", func(b *testing.B) {
		db, err := Open(dir, Options{})
		if err != nil {
			b.Fatal(err)
		}
		defer db.Close()
		b.ReportAllocs()
		b.ResetTimer()
		for range b.N {
			n := 0
			var last deadlines.Deadline
			if err := db.LoadDeadlines(func(d deadlines.Deadline) error {
				n++
				last = d
				return nil
			}); err != nil {
				b.Fatal(err)
			}
			if n != reloadDeadlines || last.Key == "" {
				b.Fatalf("loaded %d deadlines", n)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*reloadDeadlines), "ns/record")
	})
	b.Run("raw", func(b *testing.B) {
		ldb, err := leveldb.OpenFile(dir, nil)
		if err != nil {
			b.Fatal(err)
		}
		defer ldb.Close()
		b.ReportAllocs()
		b.ResetTimer()
		for range b.N {
			n, bytes := 0, 0
			it := ldb.NewIterator(util.BytesPrefix([]byte(deadlinePrefix)), &opt.ReadOptions{DontFillCache: true})
			for it.Next() {
				n++
				bytes += len(it.Key()) + len(it.Value())
			}
			it.Release()
			if err := it.Error(); err != nil {
				b.Fatal(err)
			}
			if n != reloadDeadlines || bytes == 0 {
				b.Fatalf("iterated %d records", n)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*reloadDeadlines), "ns/record")
	})
}

// BenchmarkSyncedPost: durable posts from many goroutines. grouped shares
// fsyncs through PutDeadlineSync; raw is one synced goleveldb Put per post.
// goleveldb itself merges concurrent writes that queue on its write lock
// (raw); raw-nomerge turns that off to show the cost of one fsync a post.
func BenchmarkSyncedPost(b *testing.B) {
	for _, goroutines := range []int{8, 64} {
		b.Run(fmt.Sprintf("grouped/%d", goroutines), func(b *testing.B) {
			db, err := Open(filepath.Join(b.TempDir(), "store"), Options{})
			if err != nil {
				b.Fatal(err)
			}
			defer db.Close()
			before := db.Stats()
			runPosts(b, goroutines, func(i int64) error {
				return db.PutDeadlineSync(deadlines.Deadline{Key: fmt.Sprint("post/", i), Kind: "redeliver", At: t0})
			})
			st := db.Stats()
			b.ReportMetric(float64(st.SyncedWrites-before.SyncedWrites)/float64(st.SyncedCommits-before.SyncedCommits), "posts/fsync")
		})
		for _, raw := range []struct {
			name  string
			merge bool
		}{{"raw", true}, {"raw-nomerge", false}} {
			b.Run(fmt.Sprintf("%s/%d", raw.name, goroutines), func(b *testing.B) {
				ldb, err := leveldb.OpenFile(filepath.Join(b.TempDir(), "raw"), &opt.Options{NoWriteMerge: !raw.merge})
				if err != nil {
					b.Fatal(err)
				}
				defer ldb.Close()
				val := appendDeadline(nil, deadlines.Deadline{Kind: "redeliver", At: t0})
				sync := &opt.WriteOptions{Sync: true}
				runPosts(b, goroutines, func(i int64) error {
					return ldb.Put(deadlineKey(nil, fmt.Sprint("post/", i)), val, sync)
				})
			})
		}
	}
}

// runPosts spreads b.N posts over the given number of goroutines and
// reports posts/s.
func runPosts(b *testing.B, goroutines int, post func(i int64) error) {
	var next atomic.Int64
	var wg sync.WaitGroup
	b.ResetTimer()
	start := time.Now()
	for range goroutines {
		wg.Go(func() {
			for i := next.Add(1); i <= int64(b.N); i = next.Add(1) {
				if err := post(i); err != nil {
					b.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	b.StopTimer()
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "posts/s")
}
