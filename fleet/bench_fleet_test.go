//go:build fleet

package fleet_test

import (
	"context"
	"fmt"
	"os"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/wakewheel/wakewheel/api"
	"github.com/wakewheel/wakewheel/fleet"
)

// TestFleetThroughputAndLatency measures, in one run on one R3 cluster of
// broker processes: raw JetStream synced publishes, local posts, cross-host
// posts (B → A, answered forwarded; and answered queued), and post → wake
// latency across hosts beside a local post → wake. It is a measurement,
// not a check: run it with WAKEWHEEL_FLEET_BENCH=1 (make fleet-bench).
func TestFleetThroughputAndLatency(t *testing.T) {
	if os.Getenv("WAKEWHEEL_FLEET_BENCH") == "" {
		t.Skip("a measurement: set WAKEWHEEL_FLEET_BENCH=1 (make fleet-bench)")
	}
	c := newCluster(t, 3, t.TempDir())
	a := startDaemon(t, "a", c.urls())
	b := startDaemon(t, "b", c.urls())
	openLanes(t, a, "bench.local", "bench.remote", "bench.queued", "lat.local", "lat.remote")
	const n, workers = 2000, 8

	// Raw JetStream: synced publishes to an R3 stream of the same cluster.
	nc, err := nats.Connect(c.urls())
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, _ := jetstream.New(nc)
	ctx := ctxFor(t, 5*time.Minute)
	if _, err := js.CreateStream(ctx, jetstream.StreamConfig{Name: "RAW", Subjects: []string{"raw.>"}, Replicas: 3, Storage: jetstream.FileStorage}); err != nil {
		t.Fatal(err)
	}
	raw := parallel(t, n, workers, func(i int) error {
		_, err := js.Publish(ctx, fmt.Sprintf("raw.%d", i%8), []byte("a body of about the size of a post envelope, a few dozen bytes long"),
			jetstream.WithMsgID(fmt.Sprint("raw-", i)))
		return err
	})
	local := parallel(t, n, workers, func(i int) error {
		_, err := a.client.Post(ctx, api.PostRequest{Lane: "bench.local", Class: "human", ID: fmt.Sprint("l", i), Body: "x"})
		return err
	})
	start := time.Now()
	remote := parallel(t, n, workers, func(i int) error {
		res, err := b.client.Post(ctx, api.PostRequest{Lane: "bench.remote", Class: "human", ID: fmt.Sprint("r", i), Body: "x", Wait: fleet.Forwarded})
		if err == nil && res.Route != fleet.Forwarded {
			err = fmt.Errorf("answered %s", res.Route)
		}
		return err
	})
	imported := waitImported(t, a, []string{"bench.remote"}, n, 5*time.Minute)
	endToEnd := time.Since(start)
	queued := parallel(t, n, workers, func(i int) error {
		_, err := b.client.Post(ctx, api.PostRequest{Lane: "bench.queued", Class: "human", ID: fmt.Sprint("q", i), Body: "x"})
		return err
	})
	waitImported(t, a, []string{"bench.queued"}, n, 5*time.Minute)

	latLocal := postToWake(t, a, a, "lat.local", 200)
	latRemote := postToWake(t, b, a, "lat.remote", 200)
	rate := func(d time.Duration) float64 { return float64(n) / d.Seconds() }
	t.Logf("BENCH raw JetStream synced publishes (R3, %d publishers): %.0f/s", workers, rate(raw))
	t.Logf("BENCH local posts on A (%d posters): %.0f/s", workers, rate(local))
	t.Logf("BENCH cross-host posts B->A answered forwarded (%d posters): %.0f/s; all %d imported on A %s after the first post (%.0f/s end to end; last import %s after the last answer)",
		workers, rate(remote), n, endToEnd.Round(time.Millisecond), rate(endToEnd), imported.Round(time.Millisecond))
	t.Logf("BENCH cross-host posts B->A answered queued (%d posters): %.0f/s", workers, rate(queued))
	t.Logf("BENCH ratios: local/raw %.2f, forwarded/raw %.2f, forwarded/local %.2f", rate(local)/rate(raw), rate(remote)/rate(raw), rate(remote)/rate(local))
	t.Logf("BENCH post->wake local on A: p50 %s p99 %s; across hosts B->A: p50 %s p99 %s (n=200 each, one at a time)",
		latLocal[0], latLocal[1], latRemote[0], latRemote[1])
}

// parallel runs fn(0..n-1) on workers goroutines and returns the wall time.
func parallel(t *testing.T, n, workers int, fn func(i int) error) time.Duration {
	t.Helper()
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	start := time.Now()
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < n; i += workers {
				if err := fn(i); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	took := time.Since(start)
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	return took
}

// postToWake posts one obligation at a time on from to lane (homed on
// home) while home's agent waits on it, and returns p50 and p99 of post
// call start → the wait returning the digest that holds it.
func postToWake(t *testing.T, from, home *daemon, lane string, n int) [2]time.Duration {
	t.Helper()
	var lat []time.Duration
	after := ""
	for i := range n {
		woke := make(chan time.Time, 1)
		go func() {
			for {
				res, err := home.client.WaitOnce(context.Background(), lane, "agent", after, 10*time.Second)
				if err == nil && res.Woke && !res.Digest.Noop {
					now := time.Now()
					after = res.Digest.WakeID
					_, _ = home.client.Ack(context.Background(), lane, res.Digest.Head, "")
					woke <- now
					return
				}
			}
		}()
		time.Sleep(5 * time.Millisecond) // the wait is parked before the post
		t0 := time.Now()
		if _, err := from.client.Post(context.Background(), api.PostRequest{Lane: lane, Class: "human", ID: fmt.Sprint("lat", i), Body: "x"}); err != nil {
			t.Fatal(err)
		}
		select {
		case t1 := <-woke:
			lat = append(lat, t1.Sub(t0))
		case <-time.After(30 * time.Second):
			t.Fatalf("post %d on %s never woke %s", i, from.host, lane)
		}
	}
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	q := func(p float64) time.Duration {
		return lat[min(len(lat)-1, int(p*float64(len(lat))))].Round(10 * time.Microsecond)
	}
	return [2]time.Duration{q(0.50), q(0.99)}
}
