package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rs/zerolog"

	"github.com/wakewheel/wakewheel/api"
	"github.com/wakewheel/wakewheel/internal/clock"
	ob "github.com/wakewheel/wakewheel/obligations"
	"github.com/wakewheel/wakewheel/scheduler"
	"github.com/wakewheel/wakewheel/store"
	"github.com/wakewheel/wakewheel/wakes"
)

const (
	posters   = 64
	postLanes = 8
	postBody  = "please review the retry budget in scheduler/engine.go"
)

// runPosters measures the 64 posters alone: rounds of the in-process
// baseline and the socket two ways — (a) 64 clients, a connection each,
// and (b) one client shared by the 64 goroutines (its posts pipelined on
// one stream) — each on a store of its own (a new daemon for each socket
// run), in an order that turns each round (in-process first, then
// second, then last) so that a change in the machine's load falls on all
// alike. Each round's ratios are printed, then their medians and spread.
func runPosters(bin, work string, posts, rounds int) error {
	fmt.Printf("# 64 posters, %d posts each way, %d rounds; load average %s\n", posts, rounds, loadAverage())
	var own, shared []float64
	for r := range rounds {
		var in, sock, one posterRun
		runs := []func() error{
			func() (err error) { in, err = inProcessRound(work, r, posts); return err },
			func() (err error) { sock, err = socketRound(bin, work, r, posts, socketPosters); return err },
			func() (err error) { one, err = socketRound(bin, work, r, posts, sharedPosters); return err },
		}
		for k := range runs {
			if err := runs[(k+r)%len(runs)](); err != nil {
				return err
			}
		}
		own, shared = append(own, sock.rate/in.rate), append(shared, one.rate/in.rate)
		fmt.Printf("round %d: in-process %.0f/s (CPU per post %v); (a) 64 clients %.0f/s, ratio %.2f, CPU per post: daemon %v, posters' process %v; (b) one client shared %.0f/s, ratio %.2f, CPU per post: daemon %v, posters' process %v; load average %s\n",
			r+1, in.rate, in.clientCPU, sock.rate, sock.rate/in.rate, sock.daemonCPU, sock.clientCPU, one.rate, one.rate/in.rate, one.daemonCPU, one.clientCPU, loadAverage())
	}
	for _, m := range []struct {
		name   string
		ratios []float64
	}{{"(a) 64 clients, a connection each", own}, {"(b) one client shared by 64 goroutines", shared}} {
		slices.Sort(m.ratios)
		fmt.Printf("64 posters, %s: ratio to in-process median %.2f (spread %.2f–%.2f over %d rounds)\n",
			m.name, m.ratios[len(m.ratios)/2], m.ratios[0], m.ratios[len(m.ratios)-1], len(m.ratios))
	}
	return nil
}

// posterRun is one round's rate and CPU per post (daemonCPU is zero in
// process).
type posterRun struct {
	rate                 float64
	daemonCPU, clientCPU time.Duration
}

func inProcessRound(work string, round, posts int) (posterRun, error) {
	self0 := selfCPU()
	rate, err := inProcessPosters(filepath.Join(work, fmt.Sprint("inproc-", round)), posts)
	return posterRun{rate: rate, clientCPU: (selfCPU() - self0) / time.Duration(posts)}, err
}

// socketRound runs the posters through a new daemon's socket, as posters
// has them post.
func socketRound(bin, work string, round, posts int, posters func(context.Context, string, int) (float64, error)) (posterRun, error) {
	d, err := startDaemon(bin, filepath.Join(work, fmt.Sprint("socket-", round, "-", time.Now().UnixNano())))
	if err != nil {
		return posterRun{}, err
	}
	defer d.stop()
	if os.Getenv("SCALE_PRINT_PID") != "" { // to profile the daemon (perf record -p)
		fmt.Printf("round %d: daemon pid %d\n", round+1, d.cmd.Process.Pid)
	}
	cpu0, self0 := d.cpu(), selfCPU()
	rate, err := posters(context.Background(), d.sock, posts)
	return posterRun{rate: rate, daemonCPU: (d.cpu() - cpu0) / time.Duration(posts), clientCPU: (selfCPU() - self0) / time.Duration(posts)}, err
}

// inProcessPosters is the baseline: 64 goroutines calling Service.Post of
// an obligations service wired as the daemon wires it, on a store on disk.
func inProcessPosters(dir string, n int) (float64, error) {
	db, err := store.Open(dir, store.Options{})
	if err != nil {
		return 0, err
	}
	defer db.Close()
	svc, muts, err := wakes.Open(db, wakes.Options{Policies: ob.DefaultPolicies(), Clock: clock.Real{}, Logger: zerolog.Nop()})
	if err != nil {
		return 0, err
	}
	now := time.Now()
	eng, err := scheduler.NewEngine(db, scheduler.Options{Logger: zerolog.Nop()}, now)
	if err != nil {
		return 0, err
	}
	eng.Register(ob.RedeliverKind, svc.Handler())
	if err := eng.ApplyAll(now, muts...); err != nil {
		return 0, err
	}
	runner := scheduler.Start(eng, clock.Real{})
	svc.Attach(runner)
	defer runner.Stop()
	defer svc.Close()
	ctx := context.Background()
	for l := range postLanes {
		if _, err := svc.OpenLane(ctx, fmt.Sprint("lane-", l)); err != nil {
			return 0, err
		}
	}
	return postRate(n, func(_ int, i int64) error {
		_, err := svc.Post(ctx, ob.Obligation{Lane: fmt.Sprint("lane-", i%postLanes), ID: fmt.Sprint("p", i),
			Class: ob.ClassHuman, Body: postBody}, false)
		return err
	})
}

// socketPosters: the same 64 posters through the socket, independent of
// each other: a client (so a connection) each, as 64 agents would be.
func socketPosters(ctx context.Context, sock string, n int) (float64, error) {
	clients := make([]*api.Client, posters)
	for i := range clients {
		clients[i] = api.NewClient(sock)
	}
	for l := range postLanes {
		if _, err := clients[0].OpenLane(ctx, fmt.Sprint("lane-", l)); err != nil {
			return 0, err
		}
	}
	return postRate(n, func(w int, i int64) error {
		_, err := clients[w].Post(ctx, api.PostRequest{Lane: fmt.Sprint("lane-", i%postLanes), ID: fmt.Sprint("s", i),
			Class: string(ob.ClassHuman), Body: postBody})
		return err
	})
}

// sharedPosters: the same 64 posters through the socket sharing one
// client, as the goroutines of one program would.
func sharedPosters(ctx context.Context, sock string, n int) (float64, error) {
	c := api.NewClient(sock)
	for l := range postLanes {
		if _, err := c.OpenLane(ctx, fmt.Sprint("lane-", l)); err != nil {
			return 0, err
		}
	}
	return postRate(n, func(_ int, i int64) error {
		_, err := c.Post(ctx, api.PostRequest{Lane: fmt.Sprint("lane-", i%postLanes), ID: fmt.Sprint("s", i),
			Class: string(ob.ClassHuman), Body: postBody})
		return err
	})
}

func postRate(n int, post func(poster int, i int64) error) (float64, error) {
	var next atomic.Int64
	var wg sync.WaitGroup
	var firstErr atomic.Value
	start := time.Now()
	for w := range posters {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := next.Add(1)
				if i > int64(n) {
					return
				}
				if err := post(w, i); err != nil {
					firstErr.CompareAndSwap(nil, err)
					return
				}
			}
		}()
	}
	wg.Wait()
	if err, _ := firstErr.Load().(error); err != nil {
		return 0, err
	}
	return float64(n) / time.Since(start).Seconds(), nil
}
