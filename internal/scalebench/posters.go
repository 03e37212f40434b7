package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/rs/zerolog"

	"github.com/wakewheel/wakewheel/api"
	"github.com/wakewheel/wakewheel/internal/clock"
	ob "github.com/wakewheel/wakewheel/obligations"
	"github.com/wakewheel/wakewheel/scheduler"
	"github.com/wakewheel/wakewheel/store"
	"github.com/wakewheel/wakewheel/wakes"
)

var (
	// fsyncsFlag: count each phase's fsyncs with perf (perf stat -p on
	// the daemon, or on this process in process) and print posts per fsync.
	fsyncsFlag = flag.Bool("fsyncs", false, "with -only posters: count each way's fsyncs with perf stat (root, perf installed) and print posts per fsync")
	// chunkFlag: interleave the three ways within a round (postchunks.go).
	// vsFlag: with -chunk, a second daemon's two ways in the same turns.
	vsFlag = flag.String("vs", "", "with -only posters -chunk N: another wakewheel binary whose (a) and (b) post in the same turns, printed beside -bin's as (a') and (b')")
	// inRawFlag: the in-process baseline's store syncs its journal as the
	// daemon's does, with the daemon's extra processor in this process.
	inRawFlag = flag.Bool("in-raw", false, "with -only posters: the in-process store syncs its journal raw, as the daemon's does (store.Options.RawJournalSync), and this process runs with one processor more, as the daemon does")
	chunkFlag = flag.Int("chunk", 0, "with -only posters: open the three ways together for each round and post in turns of this many posts each, -posts in all each way (0: each way in a phase of its own, on a store opened for it)")
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
// run). Without -chunk each way runs in a phase of its own, in an order
// that turns each round (in-process first, then second, then last) so
// that a change in the machine's load falls on all alike; with -chunk the
// three are opened together and post in turns of that many posts
// (postchunks.go), so that a drift of the disk or the load within a round
// falls on all three too. Each round's ratios are printed, with what is
// known of its commit cycle, then their medians and spread.
func runPosters(bin, work string, posts, rounds int) error {
	if *vsFlag != "" && *chunkFlag == 0 {
		return fmt.Errorf("-vs compares two daemons in the same turns: give -chunk N too")
	}
	if *inRawFlag {
		runtime.GOMAXPROCS(runtime.GOMAXPROCS(0) + 1)
	}
	how := "each way in a phase of its own"
	if *chunkFlag > 0 {
		how = fmt.Sprintf("the three ways in turns of %d posts", *chunkFlag)
	}
	fmt.Printf("# 64 posters, %d posts each way, %d rounds, %s; load average %s\n", posts, rounds, how, loadAverage())
	var own, shared, ownVs, sharedVs []float64
	for r := range rounds {
		var in, sock, one posterRun
		var against []posterRun
		var err error
		if *chunkFlag > 0 {
			in, sock, one, against, err = chunkedRound(bin, *vsFlag, work, r, posts, *chunkFlag)
		} else {
			err = phasedRound(bin, work, r, posts, &in, &sock, &one)
		}
		if err != nil {
			return err
		}
		own, shared = append(own, sock.rate/in.rate), append(shared, one.rate/in.rate)
		fmt.Printf("round %d: in-process %.0f/s (CPU per post %v); (a) 64 clients %.0f/s, ratio %.2f, CPU per post: daemon %v, posters' process %v; (b) one client shared %.0f/s, ratio %.2f, CPU per post: daemon %v, posters' process %v; load average %s\n",
			r+1, in.rate, in.clientCPU, sock.rate, sock.rate/in.rate, sock.daemonCPU, sock.clientCPU, one.rate, one.rate/in.rate, one.daemonCPU, one.clientCPU, loadAverage())
		for _, c := range []struct {
			name string
			run  posterRun
		}{{"in-process", in}, {"(a)", sock}, {"(b)", one}} {
			fmt.Printf("  %s: %s\n", c.name, c.run.cycle(posts))
		}
		if len(against) == 2 {
			a, b := against[0], against[1]
			ownVs, sharedVs = append(ownVs, a.rate/in.rate), append(sharedVs, b.rate/in.rate)
			fmt.Printf("  -vs %s: (a') %.0f/s, ratio %.2f, CPU per post: daemon %v, posters' process %v; (b') %.0f/s, ratio %.2f, CPU per post: daemon %v, posters' process %v\n",
				*vsFlag, a.rate, a.rate/in.rate, a.daemonCPU, a.clientCPU, b.rate, b.rate/in.rate, b.daemonCPU, b.clientCPU)
			fmt.Printf("  (a'): %s\n  (b'): %s\n", a.cycle(posts), b.cycle(posts))
		}
	}
	medians := []struct {
		name   string
		ratios []float64
	}{{"(a) 64 clients, a connection each", own}, {"(b) one client shared by 64 goroutines", shared}}
	if len(ownVs) > 0 {
		medians = append(medians, struct {
			name   string
			ratios []float64
		}{"(a') -vs, 64 clients", ownVs}, struct {
			name   string
			ratios []float64
		}{"(b') -vs, one client shared", sharedVs})
	}
	for _, m := range medians {
		slices.Sort(m.ratios)
		fmt.Printf("64 posters, %s: ratio to in-process median %.2f (spread %.2f–%.2f over %d rounds)\n",
			m.name, m.ratios[len(m.ratios)/2], m.ratios[0], m.ratios[len(m.ratios)-1], len(m.ratios))
	}
	return nil
}

// phasedRound runs the three ways one after the other, each on a store
// opened for it, in the round's turn.
func phasedRound(bin, work string, r, posts int, in, sock, one *posterRun) error {
	runs := []func() error{
		func() (err error) { *in, err = inProcessRound(work, r, posts); return err },
		func() (err error) { *sock, err = socketRound(bin, work, r, posts, socketPosters); return err },
		func() (err error) { *one, err = socketRound(bin, work, r, posts, sharedPosters); return err },
	}
	for k := range runs {
		if err := runs[(k+r)%len(runs)](); err != nil {
			return err
		}
	}
	return nil
}

// posterRun is one round's rate and CPU per post (daemonCPU is zero in
// process), and what is known of its commit cycle: the bytes written to
// storage, the fsyncs counted by perf (-fsyncs; -1 without), and the
// grouped commit's and the store's counters (none from a daemon that does
// not write them).
type posterRun struct {
	rate                 float64
	daemonCPU, clientCPU time.Duration
	fsyncs               int64
	stored               int64 // bytes written to storage a post (write_bytes, /proc/PID/io)
	commits              *commitCounts
}

// commitCounts is what the daemon writes to its debugging file
// (WAKEWHEEL_DEBUG_COMMITS), and what the in-process run reads itself.
type commitCounts struct {
	Commits wakes.CommitStats
	Store   store.Stats
}

// cycle describes the round's commit cycle: posts per fsync (perf), and
// from the counters posts per synced commit, LevelDB's synced write,
// items per batch, the mean time of a batch's stages and the batches by
// size.
func (r posterRun) cycle(posts int) string {
	parts := []string{fmt.Sprintf("%d B a post to storage", r.stored)}
	if r.fsyncs > 0 {
		parts = append(parts, fmt.Sprintf("%d fsyncs (perf), %.1f posts per fsync", r.fsyncs, float64(posts)/float64(r.fsyncs)))
	}
	if c := r.commits; c != nil && c.Commits.Batches > 0 {
		n, synced := time.Duration(c.Commits.Batches), max(c.Store.SyncedCommits, 1)
		parts = append(parts, fmt.Sprintf("%d synced commits, %.1f posts each, LevelDB's synced write %v each; %d batches, %.1f items each; a batch: write %v, apply %v, deliver %v, answer %v",
			c.Store.SyncedCommits, float64(posts)/float64(synced), (c.Store.SyncTime/time.Duration(synced)).Round(time.Microsecond),
			c.Commits.Batches, float64(c.Commits.Items)/float64(c.Commits.Batches), (c.Commits.Write/n).Round(time.Microsecond),
			(c.Commits.Apply/n).Round(time.Microsecond), (c.Commits.Deliver/n).Round(time.Microsecond),
			(c.Commits.Answer/n).Round(time.Microsecond)))
		parts = append(parts, fmt.Sprintf("batches by items (1, 2-3, 4-7, ..., 128+): %v", c.Commits.Sizes))
	}
	return strings.Join(parts, "; ")
}

func inProcessRound(work string, round, posts int) (posterRun, error) {
	self0, io0 := selfCPU(), storedBytes(os.Getpid())
	count := countFsyncs(os.Getpid())
	rate, commits, err := inProcessPosters(filepath.Join(work, fmt.Sprint("inproc-", round)), posts)
	r := posterRun{rate: rate, clientCPU: (selfCPU() - self0) / time.Duration(posts), commits: commits}
	r.fsyncs = count()
	r.stored = (storedBytes(os.Getpid()) - io0) / int64(posts)
	return r, err
}

// socketRound runs the posters through a new daemon's socket, as posters
// has them post.
func socketRound(bin, work string, round, posts int, posters func(context.Context, string, int) (float64, error)) (posterRun, error) {
	d, stats, err := startPosterDaemon(bin, work, round)
	if err != nil {
		return posterRun{}, err
	}
	count := countFsyncs(d.cmd.Process.Pid)
	cpu0, self0, io0 := d.cpu(), selfCPU(), storedBytes(d.cmd.Process.Pid)
	rate, err := posters(context.Background(), d.sock, posts)
	r := posterRun{rate: rate, daemonCPU: (d.cpu() - cpu0) / time.Duration(posts), clientCPU: (selfCPU() - self0) / time.Duration(posts)}
	r.fsyncs = count()
	r.stored = (storedBytes(d.cmd.Process.Pid) - io0) / int64(posts)
	d.stop()
	r.commits = readCommitCounts(stats)
	return r, err
}

// startPosterDaemon starts a daemon on a home of its own, asking it to
// write its commit counters to the file it returns when it stops (a
// daemon that does not know the variable writes none).
func startPosterDaemon(bin, work string, round int) (*daemon, string, error) {
	home := filepath.Join(work, fmt.Sprint("socket-", round, "-", time.Now().UnixNano()))
	stats := filepath.Join(home, "commits.json")
	d, err := startDaemonEnv(bin, home, []string{"WAKEWHEEL_DEBUG_COMMITS=" + stats})
	if err == nil && os.Getenv("SCALE_PRINT_PID") != "" { // to profile the daemon (perf record -p)
		fmt.Printf("round %d: daemon pid %d\n", round+1, d.cmd.Process.Pid)
	}
	return d, stats, err
}

// readCommitCounts reads what a stopped daemon wrote (its start and the
// lanes' opening are in it too: a few items beside the posts), or nil.
func readCommitCounts(path string) *commitCounts {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	var c commitCounts
	if json.Unmarshal(b, &c) != nil {
		return nil
	}
	return &c
}

// inProcess is the baseline's obligations service, wired as the daemon
// wires it, on a store on disk.
type inProcess struct {
	db     *store.DB
	svc    *wakes.Service
	runner *scheduler.Runner
}

func openInProcess(dir string) (*inProcess, error) {
	db, err := store.Open(dir, store.Options{RawJournalSync: *inRawFlag})
	if err != nil {
		return nil, err
	}
	svc, muts, err := wakes.Open(db, wakes.Options{Policies: ob.DefaultPolicies(), Clock: clock.Real{}, Logger: zerolog.Nop()})
	if err != nil {
		db.Close()
		return nil, err
	}
	now := time.Now()
	eng, err := scheduler.NewEngine(db, scheduler.Options{Logger: zerolog.Nop()}, now)
	if err == nil {
		eng.Register(ob.RedeliverKind, svc.Handler())
		err = eng.ApplyAll(now, muts...)
	}
	if err != nil {
		svc.Close()
		db.Close()
		return nil, err
	}
	p := &inProcess{db: db, svc: svc, runner: scheduler.Start(eng, clock.Real{})}
	svc.Attach(p.runner)
	for l := range postLanes {
		if _, err := svc.OpenLane(context.Background(), fmt.Sprint("lane-", l)); err != nil {
			p.close()
			return nil, err
		}
	}
	return p, nil
}

func (p *inProcess) post(_ int, i int64) error {
	_, err := p.svc.Post(context.Background(), ob.Obligation{Lane: fmt.Sprint("lane-", i%postLanes), ID: fmt.Sprint("p", i),
		Class: ob.ClassHuman, Body: postBody}, false)
	return err
}

func (p *inProcess) counts() (wakes.CommitStats, store.Stats) {
	return p.svc.CommitStats(), p.db.Stats()
}

func (p *inProcess) close() {
	p.svc.Close()
	p.runner.Stop()
	p.db.Close()
}

// inProcessPosters is the baseline: 64 goroutines calling Service.Post of
// an obligations service wired as the daemon wires it, on a store on disk.
func inProcessPosters(dir string, n int) (float64, *commitCounts, error) {
	p, err := openInProcess(dir)
	if err != nil {
		return 0, nil, err
	}
	defer p.close()
	c0, s0 := p.counts()
	elapsed, err := postRate(0, n, p.post)
	c1, s1 := p.counts()
	return float64(n) / elapsed.Seconds(), diffCounts(c0, c1, s0, s1), err
}

// diffCounts is the counters' change from (c0, s0) to (c1, s1).
func diffCounts(c0, c1 wakes.CommitStats, s0, s1 store.Stats) *commitCounts {
	c := &commitCounts{
		Commits: wakes.CommitStats{Batches: c1.Batches - c0.Batches, Items: c1.Items - c0.Items, Written: c1.Written - c0.Written,
			Write: c1.Write - c0.Write, Apply: c1.Apply - c0.Apply, Deliver: c1.Deliver - c0.Deliver, Answer: c1.Answer - c0.Answer},
		Store: store.Stats{SyncedCommits: s1.SyncedCommits - s0.SyncedCommits, SyncedWrites: s1.SyncedWrites - s0.SyncedWrites,
			SyncTime: s1.SyncTime - s0.SyncTime},
	}
	for k := range c.Commits.Sizes {
		c.Commits.Sizes[k] = c1.Sizes[k] - c0.Sizes[k]
	}
	return c
}

// openSocketPosters: the 64 posters through the socket, independent of
// each other: a client (so a connection) each, as 64 agents would be.
func openSocketPosters(ctx context.Context, sock string) (func(int, int64) error, error) {
	clients := make([]*api.Client, posters)
	for i := range clients {
		clients[i] = api.NewClient(sock)
	}
	return clientPost(ctx, clients[0], func(w int) *api.Client { return clients[w] })
}

// openSharedPosters: the 64 posters through the socket sharing one
// client, as the goroutines of one program would.
func openSharedPosters(ctx context.Context, sock string) (func(int, int64) error, error) {
	c := api.NewClient(sock)
	return clientPost(ctx, c, func(int) *api.Client { return c })
}

// clientPost opens the lanes through first and returns the post of poster
// w through client(w).
func clientPost(ctx context.Context, first *api.Client, client func(w int) *api.Client) (func(int, int64) error, error) {
	for l := range postLanes {
		if _, err := first.OpenLane(ctx, fmt.Sprint("lane-", l)); err != nil {
			return nil, err
		}
	}
	return func(w int, i int64) error {
		_, err := client(w).Post(ctx, api.PostRequest{Lane: fmt.Sprint("lane-", i%postLanes), ID: fmt.Sprint("s", i),
			Class: string(ob.ClassHuman), Body: postBody})
		return err
	}, nil
}

func socketPosters(ctx context.Context, sock string, n int) (float64, error) {
	return socketRate(ctx, sock, n, openSocketPosters)
}

func sharedPosters(ctx context.Context, sock string, n int) (float64, error) {
	return socketRate(ctx, sock, n, openSharedPosters)
}

func socketRate(ctx context.Context, sock string, n int, open func(context.Context, string) (func(int, int64) error, error)) (float64, error) {
	post, err := open(ctx, sock)
	if err != nil {
		return 0, err
	}
	elapsed, err := postRate(0, n, post)
	return float64(n) / elapsed.Seconds(), err
}
