package wakes

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/wakewheel/wakewheel/deadlines"
	"github.com/wakewheel/wakewheel/internal/clock"
	ob "github.com/wakewheel/wakewheel/obligations"
	"github.com/wakewheel/wakewheel/scheduler"
	"github.com/wakewheel/wakewheel/store"
)

// MaxBatch bounds the items of one grouped commit.
const MaxBatch = 1024

// item is one call's effects in the pipeline, and its caller's ticket.
type item struct {
	ops   []store.Op
	sync  bool
	muts  []deadlines.Mutation
	wakes []ob.Wake
	done  chan error // buffered: the pipeline never blocks on a caller
}

// wait blocks until the item's effects are done (durable, applied,
// delivered). A nil item is already done.
func (it *item) wait(ctx context.Context) error {
	if it == nil {
		return nil
	}
	select {
	case err := <-it.done:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// pipeline is the grouped commit. Items are enqueued under the service's
// mutex, so queue order is the order in which the state changed; one
// goroutine takes everything queued (up to MaxBatch) and does it as one
// unit: a single store write (fsynced if any item needs it), then the
// deadline mutations in order through the runner, then the wakes. While it
// works, new items queue up and form the next batch: concurrent callers
// share an fsync without ever reordering.
type pipeline struct {
	s       *Service
	mu      sync.Mutex
	queue   []*item
	busy    bool // a batch is being committed
	closed  bool
	kick    chan struct{}
	closing chan struct{}
	stopped chan struct{}
	// the committing batch's ops, mutations and wakes (commit)
	ops   []store.Op
	muts  []deadlines.Mutation
	wakes []ob.Wake
	stats commitCounters
	// the previous batch's items and store write (gatherWait); realTime:
	// the service's clock is the wall clock, so a wait is real (on a test
	// clock the pipeline never waits: the test's clock never holds a
	// commit back)
	lastItems int
	lastWrite time.Duration
	realTime  bool
}

func newPipeline(s *Service) *pipeline {
	_, realTime := s.clock.(clock.Real)
	p := &pipeline{s: s, kick: make(chan struct{}, 1), closing: make(chan struct{}), stopped: make(chan struct{}), realTime: realTime}
	go p.run()
	return p
}

// enqueue adds it to the queue (the caller holds the service's mutex).
func (p *pipeline) enqueue(it *item) *item {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		it.done <- ErrClosed
		return it
	}
	p.queue = append(p.queue, it)
	p.mu.Unlock()
	select {
	case p.kick <- struct{}{}:
	default:
	}
	return it
}

// barrier returns an item that is done once everything enqueued before it
// is, or nil when nothing is queued or in flight. The caller holds the
// service's mutex.
func (p *pipeline) barrier() *item {
	p.mu.Lock()
	idle := len(p.queue) == 0 && !p.busy
	p.mu.Unlock()
	if idle {
		return nil
	}
	return p.enqueue(&item{done: make(chan error, 1)})
}

// takeAll empties the queue (the caller holds the service's mutex).
func (p *pipeline) takeAll() []*item {
	p.mu.Lock()
	defer p.mu.Unlock()
	q := p.queue
	p.queue = nil
	return q
}

// close commits what is queued, then stops.
func (p *pipeline) close() {
	p.mu.Lock()
	if !p.closed {
		p.closed = true
		close(p.closing)
	}
	p.mu.Unlock()
	select {
	case p.kick <- struct{}{}:
	default:
	}
	<-p.stopped
}

func (p *pipeline) run() {
	defer close(p.stopped)
	for {
		p.mu.Lock()
		if len(p.queue) == 0 {
			p.busy = false
			closed := p.closed
			p.mu.Unlock()
			if closed {
				return
			}
			<-p.kick
			continue
		}
		if wait := gatherWait(len(p.queue), p.lastItems, p.lastWrite); wait > 0 && p.realTime && !p.closed {
			p.mu.Unlock()
			p.gather(wait)
			p.mu.Lock()
		}
		n := min(len(p.queue), MaxBatch)
		batch := make([]*item, n)
		copy(batch, p.queue)
		p.queue = append(p.queue[:0], p.queue[n:]...)
		p.busy = true
		p.mu.Unlock()
		p.commit(batch)
	}
}

// gather waits up to wait for the queue to hold half the previous
// batch's items (gatherWait), or for close.
func (p *pipeline) gather(wait time.Duration) {
	t := p.s.clock.NewTimer(wait)
	defer t.Stop()
	for {
		select {
		case <-p.kick:
		case <-t.C():
			return
		}
		p.mu.Lock()
		enough := p.closed || 2*len(p.queue) >= p.lastItems
		p.mu.Unlock()
		if enough {
			return
		}
	}
}

// commit does one batch: write, deadline mutations, wakes, answers. The
// batch's ops, mutations and wakes are gathered in the pipeline's own
// slices (only its goroutine commits), kept from batch to batch: each is
// done with when its step returns (the store copies what it writes, the
// engine what it applies, a wake is handed on by value).
func (p *pipeline) commit(batch []*item) {
	ops, muts, wakes := p.ops[:0], p.muts[:0], p.wakes[:0]
	sync := false
	for _, it := range batch {
		ops = append(ops, it.ops...)
		muts = append(muts, it.muts...)
		wakes = append(wakes, it.wakes...)
		sync = sync || (it.sync && len(it.ops) > 0)
	}
	defer func() {
		clear(ops) // drop what they point to
		clear(muts)
		clear(wakes)
		p.ops, p.muts, p.wakes = keep(ops), keep(muts), keep(wakes)
	}()
	var stages [4]time.Duration
	t := p.s.clock.Now()
	lap := func(i int) {
		now := p.s.clock.Now()
		stages[i], t = now.Sub(t), now
	}
	if len(ops) > 0 {
		if err := p.s.db.Write(sync, ops...); err != nil {
			p.s.recoverFrom(err, batch)
			return
		}
	}
	lap(0)
	if len(muts) > 0 {
		p.apply(muts)
	}
	lap(1)
	if len(wakes) > 0 {
		p.s.deliver(wakes)
	}
	lap(2)
	for _, it := range batch {
		it.done <- nil
	}
	lap(3)
	p.stats.add(len(batch), len(ops) > 0, stages)
	p.lastItems, p.lastWrite = len(batch), stages[0]
}

// keep returns s emptied for the next batch, or nil once it is larger
// than batches need (one big batch does not hold its memory for ever).
func keep[T any](s []T) []T {
	if cap(s) > 4*MaxBatch {
		return nil
	}
	return s[:0]
}

// apply hands the deadline mutations to the runner once it is attached. A
// failure is logged: the records are durable, and Restore derives the
// fallback deadlines again at the next start.
func (p *pipeline) apply(muts []deadlines.Mutation) {
	r := p.s.attachedRunner(p.closing)
	if r == nil {
		p.s.log.Warn().Int("mutations", len(muts)).Msg("no runner to apply redeliver deadlines; they are derived again at the next start")
		return
	}
	var applyErr error
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	err := r.Do(ctx, func(e *scheduler.Engine, now time.Time) { applyErr = e.ApplyAll(now, muts...) })
	if err = errors.Join(err, applyErr); err != nil {
		p.s.log.Error().Err(err).Msg("applying redeliver deadlines failed; they are derived again at the next start")
	}
}

// attachedRunner waits for Attach, or returns nil once closing is closed
// without a runner.
func (s *Service) attachedRunner(closing <-chan struct{}) Runner {
	select {
	case <-s.attached:
	default:
		select {
		case <-s.attached:
		case <-closing:
			return nil
		}
	}
	s.runnerMu.Lock()
	defer s.runnerMu.Unlock()
	return s.runner
}

// recoverFrom handles a failed write: the in-memory state ran ahead of the
// store, so it is reloaded from the store, and the batch and everything
// queued behind it (computed on the state that ran ahead) fail.
func (s *Service) recoverFrom(werr error, batch []*item) {
	err := fmt.Errorf("%w: %v; nothing of this call was stored, retry it", ErrStore, werr)
	s.mu.Lock()
	rest := s.pipe.takeAll()
	st, muts, next, lerr := s.load()
	if lerr != nil {
		s.broken = fmt.Errorf("%w: %v; reloading the state failed too (%v): restart the daemon", ErrStore, werr, lerr)
	} else {
		s.st, s.ledger = st, next
		if len(muts) > 0 { // re-derive the fallback re-wakes, in order
			s.pipe.enqueue(&item{muts: muts, done: make(chan error, 1)})
		}
	}
	s.mu.Unlock()
	s.failure("obligations_store_failed", RecordNS, err.Error())
	for _, it := range append(batch, rest...) {
		it.done <- err
	}
}
