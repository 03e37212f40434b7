package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// A round of the posters in chunks (-chunk): the in-process service and
// the two daemons, (a) and (b), are opened together, and the three ways
// post in turns, chunk posts at a time, until each posted its share.
// Phases of their own are seconds apart, and this machine's fsync time
// drifts by half over such a span; in turns of a fraction of a second a
// drift falls on the three alike. The turn's order rotates from chunk to
// chunk. Each way's rate is its posts over the time of its own chunks,
// its CPU per post what its processes used in them.

// chunkWay is one way of posting, open for the round, and what its chunks
// added up to.
type chunkWay struct {
	post    func(poster int, i int64) error
	daemon  *daemon // nil in process
	stats   string  // the daemon's commit counters' file
	done    int64   // posts so far (the next id is done+1)
	elapsed time.Duration
	run     posterRun
	count   func() int64
}

func (w *chunkWay) pid() int {
	if w.daemon == nil {
		return os.Getpid()
	}
	return w.daemon.cmd.Process.Pid
}

// chunk posts n more and adds its time, CPU and stored bytes.
func (w *chunkWay) chunk(n int) error {
	var cpu0 time.Duration
	if w.daemon != nil {
		cpu0 = w.daemon.cpu()
	}
	self0, io0 := selfCPU(), storedBytes(w.pid())
	elapsed, err := postRate(w.done, n, w.post)
	if err != nil {
		return err
	}
	if w.daemon != nil {
		w.run.daemonCPU += w.daemon.cpu() - cpu0
	}
	w.run.clientCPU += selfCPU() - self0
	w.run.stored += storedBytes(w.pid()) - io0
	w.done += int64(n)
	w.elapsed += elapsed
	return nil
}

// finish turns the sums into the round's rate and figures a post.
func (w *chunkWay) finish(posts int) posterRun {
	r := w.run
	r.rate = float64(posts) / w.elapsed.Seconds()
	r.daemonCPU /= time.Duration(posts)
	r.clientCPU /= time.Duration(posts)
	r.stored /= int64(posts)
	r.fsyncs = w.count()
	return r
}

// chunkedRound is one round in turns; with vs (-vs) the two socket ways of
// that binary take their turns too, and come back in against.
func chunkedRound(bin, vs, work string, round, posts, chunk int) (in, sock, one posterRun, against []posterRun, err error) {
	ctx := context.Background()
	p, err := openInProcess(filepath.Join(work, fmt.Sprint("inproc-", round)))
	if err != nil {
		return in, sock, one, nil, err
	}
	defer p.close()
	ways := []*chunkWay{{post: p.post}}
	type socketWay struct {
		bin  string
		open func(context.Context, string) (func(int, int64) error, error)
	}
	socketWays := []socketWay{{bin, openSocketPosters}, {bin, openSharedPosters}}
	if vs != "" {
		socketWays = append(socketWays, socketWay{vs, openSocketPosters}, socketWay{vs, openSharedPosters})
	}
	for _, sw := range socketWays {
		d, stats, err := startPosterDaemon(sw.bin, work, round)
		if err != nil {
			return in, sock, one, nil, err
		}
		defer d.stop()
		post, err := sw.open(ctx, d.sock)
		if err != nil {
			return in, sock, one, nil, err
		}
		ways = append(ways, &chunkWay{post: post, daemon: d, stats: stats})
	}
	for _, w := range ways {
		w.count = countFsyncs(w.pid())
	}
	c0, s0 := p.counts()
	for k := 0; ways[0].done < int64(posts); k++ {
		n := min(chunk, posts-int(ways[0].done))
		for j := range ways {
			if err := ways[(j+k+round)%len(ways)].chunk(n); err != nil {
				return in, sock, one, nil, err
			}
		}
	}
	c1, s1 := p.counts()
	runs := make([]posterRun, len(ways))
	for i, w := range ways {
		runs[i] = w.finish(posts)
		if w.daemon != nil {
			w.daemon.stop() // writes its counters (the deferred stop finds it stopped)
			runs[i].commits = readCommitCounts(w.stats)
		}
	}
	runs[0].commits = diffCounts(c0, c1, s0, s1)
	return runs[0], runs[1], runs[2], runs[3:], nil
}
