package main

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"time"

	"github.com/wakewheel/wakewheel/deadlines"
)

// start is the benchmarks' start: a multiple of 64^6 ms, so the pending
// deadlines do not cascade while a loop moves time forward.
var start = time.UnixMilli(27 << 36)

func makeKeys(prefix string, n int) []string {
	ks := make([]string, n)
	for i := range ks {
		ks[i] = fmt.Sprintf("%s/%07d", prefix, i)
	}
	return ks
}

func main() {
	op := flag.String("op", "extend", "extend, pushcancel, pushfire, reset or resetmap")
	n := flag.Int("n", 100_000, "operations")
	nkeys := flag.Int("keys", 4096, "distinct keys (a power of two)")
	pending := flag.Int("pending", 1000, "deadlines pending a month out (the wheel's; resetmap's map keeps 1,000)")
	shuffle := flag.Bool("shuffle", false, "extend: visit the keys in the fixed random order of BenchmarkReArmShuffled*")
	flag.Parse()
	w := deadlines.NewWheel(time.Millisecond, start)
	for i, k := range makeKeys("pending", *pending) {
		w.Push(k, "pending", start.Add(30*24*time.Hour+time.Duration(i)*time.Microsecond), nil)
	}
	keys, again := makeKeys("warm", *nkeys), makeKeys("warm", *nkeys)
	switch *op {
	case "extend":
		for _, k := range keys {
			w.Extend(k, "burst", start, time.Hour, 1000*time.Hour)
		}
		if *shuffle {
			rand.New(rand.NewPCG(1, 2)).Shuffle(len(again), func(i, j int) { again[i], again[j] = again[j], again[i] })
		}
		extend(w, again, *n)
	case "pushcancel":
		pushCancel(w, keys, again, *n)
	case "pushfire":
		pushFire(w, keys, *n)
	case "reset":
		ts := make([]*time.Timer, *nkeys)
		for i := range ts {
			ts[i] = time.AfterFunc(time.Hour, func() {})
		}
		reset(ts, *n)
	case "resetmap":
		m := map[string]*time.Timer{}
		for i, k := range makeKeys("pending", 1000) {
			m[k] = time.AfterFunc(30*24*time.Hour+time.Duration(i)*time.Microsecond, func() {})
		}
		for _, k := range keys {
			m[k] = time.AfterFunc(time.Hour, func() {})
		}
		resetMap(m, again, *n)
	default:
		fmt.Fprintf(os.Stderr, "opcount: unknown -op %q: want extend, pushcancel, pushfire, reset or resetmap\n", *op)
		os.Exit(2)
	}
}

//go:noinline
func extend(w *deadlines.Wheel, again []string, n int) {
	now := start
	for i := range n {
		now = now.Add(time.Microsecond)
		w.Extend(again[i&(len(again)-1)], "burst", now, time.Hour, 1000*time.Hour)
	}
}

//go:noinline
func pushCancel(w *deadlines.Wheel, keys, again []string, n int) {
	at := start.Add(500 * time.Millisecond)
	for i := range n {
		j := i & (len(keys) - 1)
		w.Push(keys[j], "burst", at, nil)
		w.Cancel(again[j])
	}
}

//go:noinline
func pushFire(w *deadlines.Wheel, keys []string, n int) {
	now := start
	var due []deadlines.Deadline
	pending := 0
	for i := range n {
		w.Push(keys[i&(len(keys)-1)], "burst", now.Add(time.Duration(i%16+1)*time.Millisecond), nil)
		if pending++; pending == 1024 {
			for pending > 0 {
				now, _ = w.Next()
				due = w.Advance(now, due[:0])
				pending -= len(due)
			}
		}
	}
}

//go:noinline
func reset(ts []*time.Timer, n int) {
	for i := range n {
		ts[i&(len(ts)-1)].Reset(time.Hour + time.Duration(i)*time.Nanosecond)
	}
}

//go:noinline
func resetMap(m map[string]*time.Timer, again []string, n int) {
	for i := range n {
		m[again[i&(len(again)-1)]].Reset(time.Hour + time.Duration(i)*time.Nanosecond)
	}
}
