package main

import (
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// What the posters' rounds count: the time the 64 posters take, and beside
// it the bytes a process wrote to storage and its fsyncs with perf.

// storedBytes is process pid's write_bytes (/proc/PID/io): what it caused
// to be written to storage.
func storedBytes(pid int) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/io", pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "write_bytes: "); ok {
			n, _ := strconv.ParseInt(v, 10, 64)
			return n
		}
	}
	return 0
}

// countFsyncs counts the fsync and fdatasync calls of process pid (every
// thread) with perf stat from now until the returned func is called,
// which returns their count; -1 when -fsyncs is off or perf cannot count.
// (perf trace would time them too, but it attaches slowly and missed a
// share of the calls here; the daemon's own counters time its writes.)
func countFsyncs(pid int) func() int64 {
	none := func() int64 { return -1 }
	if !*fsyncsFlag {
		return none
	}
	var out strings.Builder
	cmd := exec.Command("perf", "stat", "-x,", "-e", "syscalls:sys_enter_fsync,syscalls:sys_enter_fdatasync", "-p", fmt.Sprint(pid))
	cmd.Stderr = &out
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(os.Stderr, "scalebench: perf stat:", err)
		return none
	}
	time.Sleep(100 * time.Millisecond) // perf attaches
	return func() int64 {
		_ = cmd.Process.Signal(os.Interrupt)
		_ = cmd.Wait()
		var n int64
		for _, line := range strings.Split(out.String(), "\n") {
			f := strings.Split(line, ",")
			if len(f) < 3 || !strings.HasPrefix(f[2], "syscalls:") {
				continue
			}
			v, err := strconv.ParseInt(f[0], 10, 64)
			if err != nil {
				return -1
			}
			n += v
		}
		return n
	}
}

// postRate has the 64 posters post ids from+1 to from+n (each poster
// takes the next id until none is left) and returns how long it took.
func postRate(from int64, n int, post func(poster int, i int64) error) (time.Duration, error) {
	var next atomic.Int64
	next.Store(from)
	last := from + int64(n)
	var wg sync.WaitGroup
	var firstErr atomic.Value
	start := time.Now()
	for w := range posters {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := next.Add(1)
				if i > last {
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
	elapsed := time.Since(start)
	if err, _ := firstErr.Load().(error); err != nil {
		return 0, err
	}
	return elapsed, nil
}
