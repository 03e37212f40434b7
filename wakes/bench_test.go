package wakes

import (
	"fmt"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/syndtr/goleveldb/leveldb"
	"github.com/syndtr/goleveldb/leveldb/opt"

	ob "github.com/wakewheel/wakewheel/obligations"
)

// The numbers of BENCHMARKS.md, section Obligations:
//
//	go test ./wakes -run '^$' -bench 'Post|Ack' -benchtime 20000x -count 1
//
// BenchmarkPost/grouped/P: P concurrent posters through Service.Post into a
// store on disk: each post is durable (fsynced) before it returns, and
// concurrent posts share fsyncs through the commit pipeline.
// BenchmarkPost/raw-nomerge/P: the same encoded records written by P goroutines
// straight to goleveldb, one synced write per post with goleveldb's own
// write merging disabled (P=1 is the plain loop).
func BenchmarkPost(b *testing.B) {
	for _, p := range []int{8, 64} {
		b.Run(fmt.Sprintf("grouped/%d", p), func(b *testing.B) { benchGrouped(b, p) })
	}
	for _, p := range []int{1, 8, 64} {
		b.Run(fmt.Sprintf("raw-nomerge/%d", p), func(b *testing.B) { benchRaw(b, p) })
	}
}

func benchLanes(n int) []string {
	lanes := make([]string, n)
	for i := range lanes {
		lanes[i] = fmt.Sprintf("lane-%d", i)
	}
	return lanes
}

func benchGrouped(b *testing.B, posters int) {
	r := newRig(b, ob.DefaultPolicies()).start()
	defer r.stop(false)
	ctx := b.Context()
	lanes := benchLanes(8)
	for _, l := range lanes {
		r.svc.OpenLane(ctx, l)
	}
	before := r.db.Stats()
	var next atomic.Int64
	var wg sync.WaitGroup
	b.ResetTimer()
	start, cpu0 := time.Now(), processCPU()
	for range posters {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := next.Add(1)
				if i > int64(b.N) {
					return
				}
				o := ob.Obligation{Lane: lanes[i%int64(len(lanes))], ID: fmt.Sprint("p", i), Class: ob.ClassHuman,
					Body: "please review the retry budget in scheduler/engine.go"}
				if _, err := r.svc.Post(ctx, o, false); err != nil {
					b.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	b.StopTimer()
	st := r.db.Stats()
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "posts/s")
	b.ReportMetric(float64(b.N)/float64(st.SyncedCommits-before.SyncedCommits), "posts/fsync")
	b.ReportMetric(float64(processCPU()-cpu0)/float64(b.N), "cpu-ns/op")
}

// processCPU is the process's user and system CPU time: what a post costs
// whatever else the machine runs.
func processCPU() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func benchRaw(b *testing.B, writers int) {
	ldb, err := leveldb.OpenFile(filepath.Join(b.TempDir(), "raw"), &opt.Options{NoWriteMerge: true})
	if err != nil {
		b.Fatal(err)
	}
	defer ldb.Close()
	wo := &opt.WriteOptions{Sync: true, NoWriteMerge: true}
	var next atomic.Int64
	var wg sync.WaitGroup
	lat := make([][]time.Duration, writers)
	b.ResetTimer()
	start := time.Now()
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := next.Add(1)
				if i > int64(b.N) {
					return
				}
				o := ob.Obligation{Lane: "lane", Seq: uint64(i), ID: fmt.Sprint("p", i), Class: ob.ClassHuman,
					Body: "please review the retry budget in scheduler/engine.go", Posted: start}
				rec := ob.Record{Kind: ob.RecordObligation, Obligation: o}
				t0 := time.Now()
				if err := ldb.Put([]byte("n/ob/"+rec.Key()), ob.Encode(rec), wo); err != nil {
					b.Error(err)
					return
				}
				lat[w] = append(lat[w], time.Since(t0))
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	b.StopTimer()
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "posts/s")
	if writers == 1 { // the disk's own synced-write latency, for the ack numbers
		reportPercentiles(b, lat)
	}
}

// reportPercentiles reports the p50 and p99 of the latencies, in µs.
func reportPercentiles(b *testing.B, lat [][]time.Duration) {
	all := slices.Concat(lat...)
	if len(all) == 0 {
		return
	}
	slices.Sort(all)
	pct := func(p float64) float64 { return float64(all[int(p*float64(len(all)-1))].Microseconds()) }
	b.ReportMetric(pct(0.50), "p50-µs")
	b.ReportMetric(pct(0.99), "p99-µs")
}

// BenchmarkAck measures the latency of a durable ack (the CONSUMED cursor
// fsynced before the answer), each ack consuming one more obligation:
// serial (one consumer) and with 8 consumers acking their own lanes at once.
func BenchmarkAck(b *testing.B) {
	for _, consumers := range []int{1, 8} {
		b.Run(fmt.Sprintf("consumers/%d", consumers), func(b *testing.B) { benchAck(b, consumers) })
	}
}

func benchAck(b *testing.B, consumers int) {
	r := newRig(b, ob.DefaultPolicies()).start()
	defer r.stop(false)
	ctx := b.Context()
	lanes := benchLanes(consumers)
	per := (b.N + consumers - 1) / consumers
	var wg sync.WaitGroup
	for _, l := range lanes { // setup: fill and deliver every lane
		wg.Add(1)
		go func() {
			defer wg.Done()
			r.svc.OpenLane(ctx, l)
			for i := range per {
				if _, err := r.svc.Post(ctx, ob.Obligation{Lane: l, ID: fmt.Sprint(i), Class: ob.ClassHuman, Body: "x"}, false); err != nil {
					b.Error(err)
					return
				}
			}
			if _, _, err := r.svc.Wait(ctx, l, "", "", time.Second); err != nil {
				b.Error(err)
			}
		}()
	}
	wg.Wait()
	lat := make([][]time.Duration, consumers)
	b.ResetTimer()
	for c, l := range lanes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 1; i <= per; i++ {
				t0 := time.Now()
				if _, err := r.svc.Ack(ctx, l, uint64(i), ""); err != nil {
					b.Error(err)
					return
				}
				lat[c] = append(lat[c], time.Since(t0))
			}
		}()
	}
	wg.Wait()
	b.StopTimer()
	reportPercentiles(b, lat)
}
