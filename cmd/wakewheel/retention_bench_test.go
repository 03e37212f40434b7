package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wakewheel/wakewheel/api"
)

var retentionPosts = flag.Int("retention-posts", 0, "posts of TestRetentionMemory (make bench: 500000); 0 skips it")

// memLimit is what the daemon's live heap and RSS must stay under.
const memLimit = 64 << 20

// daemonMem reads the daemon's heap in use by Go objects (heap_alloc: live
// objects plus garbage not yet collected, so at least the live heap) and
// its resident set, from its /metrics.
func daemonMem(t *testing.T, addr string) (heap, rss float64) {
	t.Helper()
	code, body := get(t, "http://"+addr+"/metrics")
	if code != 200 {
		t.Fatalf("/metrics: %d", code)
	}
	sc := bufio.NewScanner(strings.NewReader(body))
	for sc.Scan() {
		name, val, ok := strings.Cut(sc.Text(), " ")
		if !ok {
			continue
		}
		v, err := strconv.ParseFloat(val, 64)
		if err != nil {
			continue
		}
		switch name {
		case "go_memstats_heap_alloc_bytes":
			heap = v
		case "process_resident_memory_bytes":
			rss = v
		}
	}
	if heap == 0 || rss == 0 {
		t.Fatal("/metrics has no go_memstats_heap_alloc_bytes or process_resident_memory_bytes")
	}
	return heap, rss
}

func mib(b float64) string { return fmt.Sprintf("%.1f MiB", b/(1<<20)) }

// TestRetentionMemory (make bench): a real daemon with a 1 s retention
// takes -retention-posts posts of 200 bytes, acked in batches of 10,000;
// the heap and RSS are sampled every 50,000 posts (the curve), then after
// the last compaction and after a restart, and must stay under 64 MiB. A
// re-post of the first (compacted) id after the restart is still a
// duplicate.
func TestRetentionMemory(t *testing.T) {
	total := *retentionPosts
	if total == 0 {
		t.Skip("run by make bench (-retention-posts 500000); the short variant is wakes' TestRetentionCompactsAndTombstonesDedup")
	}
	const batch, posters = 10000, 32
	h := newHome(t)
	addr := freePort(t)
	h.env = append(h.env, "WAKEWHEEL_METRICS_LISTEN="+addr, "WAKEWHEEL_OBLIGATIONS_RETENTION=1s")
	d := h.start()
	t.Cleanup(d.kill)
	c := h.client()
	ctx := context.Background()
	body := strings.Repeat("m", 200)
	heap0, rss0 := daemonMem(t, addr)
	t.Logf("idle daemon: heap_alloc %s, rss %s", mib(heap0), mib(rss0))

	start := time.Now()
	t.Logf("%10s %10s %12s %12s", "posts", "elapsed", "heap_alloc", "rss")
	for done := 0; done < total; done += batch {
		var wg sync.WaitGroup
		errs := make(chan error, posters)
		for p := range posters {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := done + p; i < done+batch && i < total; i += posters {
					if _, err := c.Post(ctx, api.PostRequest{Lane: "dev", Class: "human", Create: true, ID: fmt.Sprint("m-", i), Body: body}); err != nil {
						errs <- err
						return
					}
				}
			}()
		}
		wg.Wait()
		close(errs)
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
		w, err := c.WaitOnce(ctx, "dev", "bench", "", 10*time.Second)
		if err != nil || w.Digest == nil {
			t.Fatalf("wait: %v", err)
		}
		if _, err := c.Ack(ctx, "dev", w.Digest.Head, ""); err != nil {
			t.Fatal(err)
		}
		if n := done + batch; n%50000 == 0 || n >= total {
			heap, rss := daemonMem(t, addr)
			t.Logf("%10d %10s %12s %12s", n, time.Since(start).Round(time.Second), mib(heap), mib(rss))
		}
	}

	// The last batch's retention ends 1 s after its ack; its compaction
	// takes three steps of at most 4096. Wait, without loading the daemon.
	time.Sleep(5 * time.Second)
	heap, rss := daemonMem(t, addr)
	t.Logf("after compaction: heap_alloc %s, rss %s", mib(heap), mib(rss))
	if heap > memLimit || rss > memLimit {
		t.Errorf("after compaction: heap_alloc %s, rss %s; want both under %s", mib(heap), mib(rss), mib(memLimit))
	}

	d.stop(t)
	d = h.start()
	t.Cleanup(d.kill)
	c = h.client()
	dup, err := c.Post(ctx, api.PostRequest{Lane: "dev", Class: "human", ID: "m-0", Body: body})
	if err != nil || !dup.Duplicate || !dup.Obligation.Compacted {
		t.Errorf("a re-post of a compacted id after the restart: %+v, %v; want a duplicate of a compacted obligation", dup, err)
	}
	heap, rss = daemonMem(t, addr)
	t.Logf("after a restart: heap_alloc %s, rss %s", mib(heap), mib(rss))
	if heap > memLimit || rss > memLimit {
		t.Errorf("after a restart: heap_alloc %s, rss %s; want both under %s", mib(heap), mib(rss), mib(memLimit))
	}
}
