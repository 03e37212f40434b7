package api

import (
	"io"
	"runtime"
	"sync"
)

// batchWriter is a pipelined post stream's writes, on either side: frames
// handed to it while one write is under way are appended behind it and go
// out together in the next write, by the goroutine that wrote the first;
// no goroutine of its own. So many posts in flight on one connection cost
// a write per batch, not one each. The first error is kept: every later
// write fails with it.
type batchWriter struct {
	c       io.Writer // the connection
	mu      sync.Mutex
	pending []byte // handed over and not yet written
	spare   []byte // the last batch's array, for the next
	writing bool
	err     error
}

// maxKeptBatch bounds the array a batchWriter keeps between batches.
const maxKeptBatch = 256 << 10

// write has frame written, in a batch with whatever else is handed over
// meanwhile: by this goroutine if no write is under way (it then writes
// until nothing is pending), or by the one writing. It returns once the
// frame is written or handed to the goroutine writing; an error means the
// connection failed: an unsentError that the frame was not handed over (an
// earlier write failed), any other that it may have been written in part
// or whole (a write can fail after the peer read some of it). others says
// other frames may be on their way (other posts are in flight): only then
// does a first writer yield before it writes.
func (w *batchWriter) write(frame []byte, others bool) error {
	w.mu.Lock()
	if w.err != nil {
		err := w.err
		w.mu.Unlock()
		return unsentError{err}
	}
	mine := len(w.pending) // where frame starts in the next write
	w.pending = append(w.pending, frame...)
	if w.writing {
		w.mu.Unlock()
		return nil
	}
	w.writing = true
	if others {
		// Goroutines made ready with this one (the posts of one commit
		// group on the daemon, the posters of one batch of answers on the
		// client) hand their frames over first: one write for them all,
		// not one each.
		w.mu.Unlock()
		runtime.Gosched()
		w.mu.Lock()
	}
	return w.flushLocked(mine)
}

// unsentError is a write's error when its frame was never handed over.
type unsentError struct{ err error }

func (e unsentError) Error() string { return e.err.Error() }
func (e unsentError) Unwrap() error { return e.err }

// unsent says err is a write's that did not hand its frame over: nothing
// of it reached the connection.
func unsent(err error) bool {
	_, ok := err.(unsentError)
	return ok
}

// idle says no write is under way and nothing is pending.
func (w *batchWriter) idle() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return !w.writing && len(w.pending) == 0
}

// flushLocked writes what is pending until nothing is, with w.mu held and
// writing set; it returns with w.mu released. mine is where the caller's
// own frame starts in the first write (-1: none): a write that failed
// before reaching it fails with an unsentError.
func (w *batchWriter) flushLocked(mine int) error {
	for {
		out := w.pending
		w.pending = w.spare[:0]
		w.mu.Unlock()
		n, err := w.c.Write(out)
		w.mu.Lock()
		if cap(out) <= maxKeptBatch {
			w.spare = out[:0]
		} else {
			w.spare = nil
		}
		if err != nil {
			w.err, w.writing, w.pending = err, false, nil
			w.mu.Unlock()
			if n <= mine {
				return unsentError{err}
			}
			return err
		}
		if len(w.pending) == 0 {
			w.writing = false
			w.mu.Unlock()
			return nil
		}
		mine = -1
	}
}

// alone writes by fn (a round trip that writes one frame and reads what
// answers it) if no write is under way and nothing is pending, then what
// was handed over meanwhile; ran says fn ran. An error of fn fails the
// writer as a write's does.
func (w *batchWriter) alone(fn func() error) (ran bool, err error) {
	w.mu.Lock()
	if w.err != nil || w.writing || len(w.pending) > 0 {
		w.mu.Unlock()
		return false, nil
	}
	w.writing = true
	w.mu.Unlock()
	err = fn()
	w.mu.Lock()
	if err != nil {
		w.err, w.writing, w.pending = err, false, nil
		w.mu.Unlock()
		return true, err
	}
	if len(w.pending) == 0 {
		w.writing = false
		w.mu.Unlock()
		return true, nil
	}
	return true, w.flushLocked(-1)
}
