package api_test

import (
	"context"
	"os"
	"path/filepath"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/rs/zerolog"
	"github.com/wakewheel/wakewheel/api"
	ob "github.com/wakewheel/wakewheel/obligations"
)

// instantPosts answers every post at once: what is left of a post through
// the socket is the API's own cost (HTTP, JSON, the unix socket).
type instantPosts struct {
	api.Obligations
	seq atomic.Uint64
}

func (p *instantPosts) Post(_ context.Context, o ob.Obligation, _ bool) (ob.Obligation, error) {
	o.Seq, o.Posted = p.seq.Add(1), time.Now()
	return o, nil
}

// BenchmarkPostThroughSocket is the API's cost per post: 64 goroutines
// sharing one Client, a server whose service answers at once.
func BenchmarkPostThroughSocket(b *testing.B) {
	srv := api.NewServer(nil, nil, api.Info{Version: "bench"}, zerolog.Nop())
	api.RegisterObligations(srv, &instantPosts{})
	dir, err := os.MkdirTemp("", "ww")
	if err != nil {
		b.Fatal(err)
	}
	defer os.RemoveAll(dir)
	sock := filepath.Join(dir, "s.sock")
	go srv.Serve(sock)
	defer srv.Shutdown(context.Background())
	c := api.NewClient(sock)
	ctx := context.Background()
	for {
		if _, err := c.Post(ctx, api.PostRequest{Lane: "l", Class: "human", Body: "warm"}); err == nil {
			break
		}
		time.Sleep(time.Millisecond)
	}
	b.SetParallelism(32) // 64 goroutines on 2 cores
	b.ReportAllocs()
	cpu0 := processCPU()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := c.Post(ctx, api.PostRequest{Lane: "lane-1", Class: "human", ID: api.NewPostID(),
				Body: "please review the retry budget in scheduler/engine.go"}); err != nil {
				b.Error(err)
				return
			}
		}
	})
	b.ReportMetric(float64(processCPU()-cpu0)/float64(b.N), "cpu-ns/op")
}

// processCPU is the user and system CPU time of this process (the client
// and the server), which the box's other load does not inflate.
func processCPU() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
