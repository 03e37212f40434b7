package main

import (
	"context"
	"fmt"
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
