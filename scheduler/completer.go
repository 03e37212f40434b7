package scheduler

import (
	"sync"
	"sync/atomic"

	"github.com/rs/zerolog"
	"github.com/wakewheel/wakewheel"
)

// The fire records of a Runner are written off its loop. A record is a
// LevelDB journal write (a syscall, now and then a long one, and a wait
// for the disk when the store throttles writes); on the loop, every post
// and every deadline falling due meanwhile waited for it, and a write that
// outlasts the runtime's check hands the loop's processor away, so that the
// loop then waits for one again. A Runner's engine hands each record to a
// completer goroutine instead, which writes them in the order the runs
// finished: the records waiting when the writer takes one go with it in
// one batch (up to completerBatch), so a drain of many runs writes the
// journal once for many records, not once a record, and a lone record is
// written as soon as it comes.
//
// What a crash can do is unchanged. The record and the retirement of the
// deadline stay one batch (Store.CompleteAll): a run whose record was not
// written when the process died runs again after the restart and records
// once, as a run interrupted before Finish always did; a run whose record
// was written does not run again. No record is written twice: each run
// finished hands over one.
//
// Order per key is kept: a record that retires its deadline deletes the
// key's stored record and drops its written-behind change, so a later write
// of the same key from the loop (a push, a reschedule, a cancel) must come
// after it. Such a write first waits for the key's record to be written
// (settle); the wait is on the loop, but only for a key written again
// within the moment its record is in flight. A record that keeps the
// deadline (pending again, rescheduled) touches no deadline record and is
// not waited for. Runner.Stop returns once every record handed over is
// written, so a store closed after it has them all.
type completer struct {
	store Store
	log   zerolog.Logger
	recs  chan completion

	mu       sync.Mutex
	written  sync.Cond
	retiring map[string]uint64 // key → the last retiring record handed over for it; guarded by mu
	next     uint64            // sequence of the next record handed over; loop only
	done     chan struct{}
	// waiting: room found the queue full; the writer calls wake when it
	// takes the next record.
	waiting atomic.Bool
	wake    func()
}

type completion struct {
	seq uint64
	wakewheel.Finished
}

// completerQueue and completerBatch bound the records handed over and
// not yet written: those queued, and those the writer took for its batch.
// The Runner starts a run only while there is room for its record (room),
// so the loop does not wait for the writer when the store throttles
// writes: the runs wait in the queue instead, and the loop goes on
// answering.
const (
	completerQueue = 192
	completerBatch = 64
)

// newCompleter starts the writer; wake is called when it takes a record
// after room said there was none (the loop's sleeper's Wake).
func newCompleter(store Store, log zerolog.Logger, wake func()) *completer {
	c := &completer{store: store, log: log, recs: make(chan completion, completerQueue),
		retiring: map[string]uint64{}, done: make(chan struct{}), wake: wake}
	c.written.L = &c.mu
	go c.run()
	return c
}

// complete hands a finished run's record over (the loop's side).
func (c *completer) complete(key string, keep bool, f wakewheel.Fire) {
	c.next++
	if !keep {
		c.mu.Lock()
		c.retiring[key] = c.next
		c.mu.Unlock()
	}
	c.recs <- completion{seq: c.next, Finished: wakewheel.Finished{Key: key, Keep: keep, Fire: f}}
}

// room reports whether a record can be handed over now without waiting
// for the writer (the loop's side, before it starts a run). When it
// cannot, the writer calls wake once it has taken a record. It looks
// again after saying so, since the writer may have taken one meanwhile
// without seeing it.
func (c *completer) room() bool {
	if len(c.recs) < cap(c.recs) {
		return true
	}
	c.waiting.Store(true)
	return len(c.recs) < cap(c.recs)
}

// settle returns once no record that retires key is in flight (the loop's
// side, before it writes key's deadline record).
func (c *completer) settle(key string) {
	c.mu.Lock()
	for {
		if _, ok := c.retiring[key]; !ok {
			break
		}
		c.written.Wait()
	}
	c.mu.Unlock()
}

// close writes what was handed over and stops the writer.
func (c *completer) close() {
	close(c.recs)
	<-c.done
}

func (c *completer) run() {
	defer close(c.done)
	batch := make([]completion, 0, completerBatch)
	done := make([]wakewheel.Finished, 0, completerBatch)
	for r := range c.recs {
		batch = append(batch[:0], r)
		for len(batch) < completerBatch && len(c.recs) > 0 {
			batch = append(batch, <-c.recs) // only this goroutine receives
		}
		if c.waiting.Swap(false) {
			c.wake()
		}
		done = done[:0]
		for _, r := range batch {
			done = append(done, r.Finished)
		}
		if err := c.store.CompleteAll(done); err != nil {
			c.log.Error().Err(err).Int("records", len(done)).Str("key", done[0].Key).Msg("recording finished actions failed; they may run again after a restart")
		}
		c.retired(batch)
	}
}

// retired forgets the written records that retired their keys, and wakes
// the loop's settle calls waiting for them.
func (c *completer) retired(batch []completion) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, r := range batch {
		if !r.Keep && c.retiring[r.Key] == r.seq { // no later retiring record of the key
			delete(c.retiring, r.Key)
		}
	}
	c.written.Broadcast()
}
