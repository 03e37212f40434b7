package yieldtest

import (
	"runtime"
	"sync/atomic"
)

// RunsDuring runs work with one processor and returns how many times a
// goroutine that is always ready to run got the processor meanwhile: about
// once per yield of work, and 0 for work that never yields.
func RunsDuring(work func()) int64 {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	var ran, done atomic.Int64
	started := make(chan struct{})
	go func() {
		close(started)
		for done.Load() == 0 {
			ran.Add(1)
			runtime.Gosched()
		}
	}()
	<-started
	before := ran.Load()
	work()
	during := ran.Load() - before
	done.Store(1)
	return during
}
