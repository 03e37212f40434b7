package scheduler

import (
	"context"
	"sync"
	"time"

	"github.com/wakewheel/wakewheel/internal/clock"
)

// Runner drives an Engine in real (or fake) time: one loop goroutine owns
// the engine and sleeps until its Wake(); one worker goroutine runs
// handlers, one job at a time. Other goroutines reach the engine only
// through Do.
type Runner struct {
	eng   *Engine
	clock clock.Clock
	sleep clock.Sleeper // the loop's; every sender below wakes it
	reqs  chan request
	stop  chan struct{}
	done  chan struct{}
	once  sync.Once
}

// inbox is how many requests may wait for the loop. The loop waits in its
// clock's sleeper, not in a select, so a request is put in the inbox and
// the sleeper woken; a full inbox holds its sender until the loop takes one.
const inbox = 64

type request struct {
	fn    func(e *Engine, now time.Time)
	reply chan struct{}
}

type result struct {
	job Job
	out Outcome
}

// Start runs eng until Stop. The engine must not be used directly
// afterwards. From now on its fire records are written off the loop
// (completer.go); Stop returns once they are all written.
func Start(eng *Engine, clk clock.Clock) *Runner {
	r := &Runner{
		eng:   eng,
		clock: clk,
		sleep: clock.NewSleeper(clk),
		reqs:  make(chan request, inbox),
		stop:  make(chan struct{}),
		done:  make(chan struct{}),
	}
	eng.completer = newCompleter(eng.store, eng.log, r.sleep.Wake)
	go r.loop()
	return r
}

// Do runs fn on the loop goroutine with the engine and the current time,
// and waits for it. It is the single entry point for change; fn must not
// block. It returns ErrStopped once the runner has stopped, and ctx's error
// if ctx ends first.
func (r *Runner) Do(ctx context.Context, fn func(e *Engine, now time.Time)) error {
	req := request{fn: fn, reply: make(chan struct{})}
	select {
	case r.reqs <- req:
	case <-r.done:
		return ErrStopped
	case <-ctx.Done():
		return ctx.Err()
	}
	r.sleep.Wake()
	// fn runs on the loop, which always replies to a request it takes; one
	// left in the inbox when the loop stopped never runs.
	select {
	case <-req.reply:
	case <-r.done:
		select {
		case <-req.reply:
		default:
			return ErrStopped
		}
	}
	return nil
}

// Stop cancels the running action's context, waits for it to return
// (serving what it asks of the loop meanwhile), and ends the loop. Queued
// and interrupted jobs keep their store records and run after the next
// start.
func (r *Runner) Stop() {
	r.once.Do(func() {
		close(r.stop)
		r.sleep.Wake()
	})
	<-r.done
}

func (r *Runner) loop() {
	defer close(r.done)
	defer r.eng.completer.close() // after the last Finish below
	// One job runs at a time (busy). The loop hands it over without
	// waiting for the worker to take it: a loop blocked on that hand-off
	// was readied onto the worker's processor once taken, and waited
	// there behind the whole run, with the requests that came meanwhile.
	jobs := make(chan Job, 1)
	results := make(chan result, 1)

	workerCtx, cancelWorker := context.WithCancel(context.Background())
	defer cancelWorker()
	go func() {
		for job := range jobs {
			results <- result{job, r.eng.Run(workerCtx, job)}
			r.sleep.Wake()
		}
	}()
	defer close(jobs)

	busy := false
	// armed is the instant the sleeper is armed for, zero when it is not
	// or when a Wait may have spent it. An instant unchanged since it was
	// armed is not armed again: the sleeper already wakes at it (a Reset
	// counted from a later now would name the same instant), and a clock
	// that moved between the now read and the Reset (a fake clock's Set)
	// cannot push it later.
	var armed time.Time
	for {
		now := r.clock.Now()
		r.eng.Due(now)
		// A run starts only when its record will find room with the
		// completer: a loop that waited for the writer while the store
		// throttled its writes answered nothing for as long (seconds, in
		// a drain of a million runs). Until then the run waits in the
		// queue, and the writer wakes the loop when it has taken a record.
		if !busy && r.eng.completer.room() {
			if job, ok := r.eng.NextJob(now); ok {
				jobs <- job
				busy = true
			}
		}
		if at, ok := r.eng.Wake(); ok {
			// Wake is the deadline's own instant, or the one instant the
			// deadlines sharing its tick fire at (timer slack), or, for
			// one further out, a slot's to cascade; counted from a fresh
			// now, so the time the firing above took is not added to the
			// sleep.
			if !at.Equal(armed) {
				r.sleep.Reset(max(at.Sub(r.clock.Now()), 0))
				armed = at
			}
		} else {
			r.sleep.Stop() // idle: no timer at all
			armed = time.Time{}
		}
		select {
		case req := <-r.reqs:
			r.serve(req)
		case res := <-results:
			busy = false
			r.eng.Finish(r.clock.Now(), res.job, res.out)
		case <-r.stop:
			if busy {
				// Ask the running action to stop. A finished run is recorded;
				// an interrupted one keeps its record and runs after restart.
				cancelWorker()
				if res := r.drain(results); res.out.Result == Done {
					r.eng.Finish(r.clock.Now(), res.job, res.out)
				}
			}
			return
		default:
			// Nothing waiting: sleep until the wake instant or a sender's
			// Wake, then look again. Polled's sleeper waits in the poller
			// itself, so a timer's wake is one thread's (clock doc.go).
			r.sleep.Wait()
			armed = time.Time{} // it may have returned for the armed instant
		}
	}
}

// drain waits for the running action's result while the loop stops, and
// serves the requests that come meanwhile: an action may ask the loop for
// something on its way out (a root's detection records an alert through
// Do), and a loop that only waited for the result would never answer it,
// so neither would ever return.
func (r *Runner) drain(results <-chan result) result {
	for {
		select {
		case res := <-results:
			return res
		case req := <-r.reqs:
			r.serve(req)
		}
	}
}

// serve runs a request on the loop and replies to it.
func (r *Runner) serve(req request) {
	req.fn(r.eng, r.clock.Now())
	close(req.reply)
}
