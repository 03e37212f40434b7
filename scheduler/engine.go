package scheduler

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"runtime/debug"
	"sort"
	"strings"
	"time"

	"github.com/rs/zerolog"
	"github.com/wakewheel/wakewheel"
	"github.com/wakewheel/wakewheel/deadlines"
)

// Options are the runner's numbers. Zero values take the defaults.
type Options struct {
	Tick          time.Duration // base tick of the wheel (default 1ms)
	Slack         time.Duration // timer slack (Wake); zero: none, each deadline at its own instant (daemon: engine.timer_slack)
	RetryBase     time.Duration // first retry backoff (default 1s)
	RetryCap      time.Duration // largest backoff (default 5m)
	RetryAttempts int           // runs before the retries_exhausted alert (default 5)
	ActionTimeout time.Duration // context deadline of one run (default 10m)
	// Indexed are the kinds whose pending keys the engine keeps apart, so
	// OfKind visits them without the others (kindindex.go): kinds with few
	// deadlines, never the reminders.
	Indexed []string
	Logger  zerolog.Logger
	// Shrunk, when set, is called on the loop after the wheel was built
	// anew smaller (deadlines.Wheel.Compact, once a large wheel holds few):
	// what it held is garbage from then on, and the daemon gives it back
	// to the system off the loop.
	Shrunk func()
}

func (o Options) withDefaults() Options {
	if o.Tick <= 0 {
		o.Tick = time.Millisecond
	}
	if o.RetryBase <= 0 {
		o.RetryBase = time.Second
	}
	if o.RetryCap <= 0 {
		o.RetryCap = 5 * time.Minute
	}
	if o.RetryAttempts <= 0 {
		o.RetryAttempts = 5
	}
	if o.ActionTimeout <= 0 {
		o.ActionTimeout = 10 * time.Minute
	}
	return o
}

// Job is one run handed to the worker.
type Job struct {
	Firing
	handler Handler
}

// Engine is the synchronous core of the runner. It is not safe for
// concurrent use: the Runner's loop goroutine owns it, and simulations
// drive it directly.
type Engine struct {
	opts     Options
	log      zerolog.Logger
	store    Store
	wheel    *deadlines.Wheel
	handlers map[string]Handler
	queue    *keyQueue
	attempts map[string]int  // runs of a key since it was last retired, for backoff
	retried  map[string]bool // keys whose conflict retry is spent
	due      []deadlines.Deadline
	kinds    kindIndex
	stats    Stats
	// completer writes the fire records off the loop when a Runner drives
	// the engine (completer.go); nil: Finish writes them itself.
	completer *completer
}

// Stats are the engine's counters.
type Stats struct {
	Fired    uint64            // deadlines that fell due
	Runs     uint64            // handler runs
	Outcomes map[string]uint64 // runs by result
	Alerts   uint64            // alerts raised
	Reloaded int               // deadlines loaded at start
}

// NewEngine loads every persisted deadline into a new wheel. Deadlines that
// fell due while the process was down fire at the first Due, once each, in
// due order.
func NewEngine(store Store, opts Options, now time.Time) (*Engine, error) {
	opts = opts.withDefaults()
	e := &Engine{
		opts:     opts,
		log:      opts.Logger,
		store:    store,
		handlers: map[string]Handler{},
		queue:    newKeyQueue(),
		attempts: map[string]int{},
		retried:  map[string]bool{},
		kinds:    newKindIndex(opts.Indexed),
		stats:    Stats{Outcomes: map[string]uint64{}},
	}
	if err := e.reload(now); err != nil {
		return nil, fmt.Errorf("scheduler: reload deadlines: %w", err)
	}
	e.stats.Reloaded = e.wheel.Len()
	return e, nil
}

// reload fills the wheel from the store. Reading records runs in a
// goroutine of its own while this one decodes them and enters them into a
// new wheel (deadlines.Loader, its key index sized from the store's
// estimate, so that it fills as the load goes): a restart with a million
// deadlines pays for the slower of the two, not for their sum, and the
// wheel is complete when the last batch is in. Only this goroutine touches
// the wheel.
func (e *Engine) reload(now time.Time) error {
	type decodeBatch = func(fn func(deadlines.Deadline) error) error
	type batch struct {
		decode decodeBatch
		expect int
	}
	batches := make(chan batch, 4)
	stop := make(chan struct{}) // closed when a batch does not decode
	loadErr := make(chan error, 1)
	go func() {
		defer close(batches)
		loadErr <- e.store.LoadDeadlineBatches(func(decode decodeBatch, expect int) error {
			select {
			case batches <- batch{decode, expect}:
				return nil
			case <-stop:
				return errLoadStopped
			}
		})
	}()
	l := deadlines.NewLoader(e.opts.Tick, now)
	lastKind, indexed := "", false
	add := func(d deadlines.Deadline) error {
		l.Add(d)
		if d.Kind != lastKind { // runs of one kind: one look a run
			lastKind, indexed = d.Kind, e.kinds.indexes(d.Kind)
		}
		if indexed { // a few: the key is a view of the batch, kept as a copy
			e.kinds.keys[strings.Clone(d.Key)] = d.Kind
		}
		return nil
	}
	var decodeErr error
	for b := range batches {
		if decodeErr == nil {
			l.Expect(b.expect)
			if decodeErr = b.decode(add); decodeErr != nil {
				close(stop)
			}
		}
	}
	e.wheel = l.Wheel()
	if err := <-loadErr; decodeErr == nil {
		return err
	}
	return decodeErr
}

// errLoadStopped ends a store's load whose records stopped decoding.
var errLoadStopped = errors.New("scheduler: load stopped")

// Register sets the handler of a kind. Register every kind before the first
// Due; a deadline whose kind has no handler fails with an alert.
func (e *Engine) Register(kind string, h Handler) { e.handlers[kind] = h }

// Known reports whether kind has a handler.
func (e *Engine) Known(kind string) bool { _, ok := e.handlers[kind]; return ok }

// Apply validates and applies one mutation: the wheel first (by the rules
// of deadlines.Wheel.Apply), then the store's write-behind. A push, extend
// or reset needs a registered kind. Durability before acknowledgement is
// the caller's choice (Store.Sync).
func (e *Engine) Apply(now time.Time, m deadlines.Mutation) (deadlines.Applied, error) {
	if m.Op != deadlines.OpCancel && !e.Known(m.Kind) {
		if err := deadlines.CheckKey(m.Key); err != nil {
			return deadlines.Applied{}, err
		}
		return deadlines.Applied{}, fmt.Errorf("%w %q", ErrUnknownKind, m.Kind)
	}
	a, err := e.wheel.Apply(now, m)
	if err == nil && !a.Changed && a.Pending && len(e.kinds.kinds) > 0 {
		// an extend that restarts its window at the same due time takes
		// the mutation's kind without moving
		if d, ok := e.wheel.Get(m.Key); ok {
			e.kinds.pending(d.Key, d.Kind)
		}
	}
	if err != nil || !a.Changed {
		return a, err
	}
	if !a.Pending {
		e.kinds.gone(m.Key)
		if !e.queue.Processing(m.Key) {
			e.settle(m.Key)
			e.store.DeleteDeadline(m.Key)
		}
		return a, nil
	}
	d, _ := e.wheel.Get(m.Key)
	e.kinds.pending(d.Key, d.Kind)
	e.settle(d.Key)
	e.store.PutDeadline(d)
	return a, nil
}

// ApplyAll applies muts in order, going on past a failed one, and returns
// every failure joined (each naming its mutation).
func (e *Engine) ApplyAll(now time.Time, muts ...deadlines.Mutation) error {
	var errs []error
	for _, m := range muts {
		if _, err := e.Apply(now, m); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", m, err))
		}
	}
	return errors.Join(errs...)
}

// Get returns the pending deadline of key.
func (e *Engine) Get(key string) (deadlines.Deadline, bool) { return e.wheel.Get(key) }

// Pending lists pending deadlines in due order. It copies and sorts every
// deadline: O(n log n), for simulations and tests. The daemon never calls
// it: its resume and re-timing visit the deadlines of a few kinds (OfKind),
// and the API lists deadlines from the store's snapshot, off the loop.
func (e *Engine) Pending() []deadlines.Deadline {
	out := make([]deadlines.Deadline, 0, e.wheel.Len())
	for d := range e.wheel.All() {
		out = append(out, d)
	}
	sort.Slice(out, func(i, j int) bool {
		if !out[i].At.Equal(out[j].At) {
			return out[i].At.Before(out[j].At)
		}
		return out[i].Key < out[j].Key
	})
	return out
}

// Len is the number of pending deadlines.
func (e *Engine) Len() int { return e.wheel.Len() }

// Overdue is the number of pending deadlines that were already due when
// the engine was loaded and have not fired yet: O(overdue).
func (e *Engine) Overdue() int { return e.wheel.Overdue() }

// All yields every pending deadline in no order, copying nothing; the
// engine must not change during the iteration. O(pending): for start-up,
// never for a request.
func (e *Engine) All() iter.Seq[deadlines.Deadline] { return e.wheel.All() }

// PendingByKind counts the pending deadlines of each kind, in O(kinds): the
// wheel keeps the counts as deadlines come and go, so a status request on
// the loop costs the same at a million pending as at none.
func (e *Engine) PendingByKind() map[string]int {
	out := map[string]int{}
	for k, n := range e.wheel.ByKind() {
		out[k] = n
	}
	return out
}

// Next is the wheel's next due time (deadlines.Wheel.Next), false when
// nothing is pending: never later than the earliest pending At, and that At
// exactly once it is within 64 ticks, so the runner's timer is armed for a
// deadline's own instant, not the tick boundary after it. Jobs already
// queued are not counted: the runner hands them out as its worker frees up
// (NextJob), without waiting for a time.
func (e *Engine) Next() (time.Time, bool) { return e.wheel.Next() }

// Wake is the instant the runner's timer is armed for: Next, or, when the
// deadline due next shares its tick with others, the coalesced instant of
// the wheel's Wake with Options.Slack (at most that late, never early; a
// deadline alone in its tick keeps its own instant). False when nothing
// is pending.
//
// It is false too while the queue holds maxWaiting runs: the deadlines due
// then wait in the wheel, and the worker's next result, which makes room,
// wakes the runner.
func (e *Engine) Wake() (time.Time, bool) {
	if e.queue.Len() >= maxWaiting {
		return time.Time{}, false
	}
	return e.wheel.Wake(e.opts.Slack)
}

// Earliest is the pending deadline due first (deadlines.Wheel.Earliest):
// exact, and cheap on the loop however many are pending.
func (e *Engine) Earliest() (deadlines.Deadline, bool) { return e.wheel.Earliest() }

// maxWaiting is the most runs the queue holds: one worker runs them one at
// a time, so a longer queue only copies deadlines out of the wheel early.
// 256 keep the worker fed between two turns of the loop and cost a turn
// that fills them well under a tick (about 1 µs a deadline moved).
const maxWaiting = 256

// Waiting is the number of queued jobs.
func (e *Engine) Waiting() int { return e.queue.Len() }

// Stats returns a copy of the counters.
func (e *Engine) Stats() Stats {
	s := e.stats
	s.Outcomes = make(map[string]uint64, len(e.stats.Outcomes))
	for k, v := range e.stats.Outcomes {
		s.Outcomes[k] = v
	}
	return s
}

// Due moves the deadlines whose At is not after now into the queue, in due
// order, until it holds maxWaiting runs, and returns how many it moved.
// The others stay pending in the wheel, overdue, and move as the queue
// empties (deadlines.Wheel.AdvanceAtMost): after downtime a million due
// at once cost the loop one call that orders them, not a second of
// copies, and the memory of a million queued runs. Once a large wheel
// holds few, Due has it built anew (deadlines.Wheel.Compact), so that its
// memory follows what it holds, and calls Options.Shrunk.
func (e *Engine) Due(now time.Time) int {
	room := maxWaiting - e.queue.Len()
	if room <= 0 {
		return 0
	}
	e.due = e.wheel.AdvanceAtMost(now, room, e.due[:0])
	for _, d := range e.due {
		e.kinds.gone(d.Key)
		e.queue.Add(d)
	}
	e.stats.Fired += uint64(len(e.due))
	clear(e.due)
	if e.wheel.Compact() {
		e.log.Info().Int("pending", e.wheel.Len()).Msg("the wheel was built anew for the few deadlines left; its memory is given back")
		if e.opts.Shrunk != nil {
			e.opts.Shrunk()
		}
	}
	return len(e.due)
}

// NextJob hands out the next queued run, if any.
func (e *Engine) NextJob(now time.Time) (Job, bool) {
	d, ok := e.queue.Get()
	if !ok {
		return Job{}, false
	}
	e.attempts[d.Key]++
	return Job{Firing: Firing{Deadline: d, Now: now, Attempt: e.attempts[d.Key]}, handler: e.handlers[d.Kind]}, true
}

// Run executes a job's handler with the action timeout, turning a missing
// handler, a panic or a timeout into an outcome. It touches no engine
// state, so the Runner calls it from its worker goroutine.
func (e *Engine) Run(ctx context.Context, job Job) (out Outcome) {
	if job.handler == nil {
		return Failed(fmt.Errorf("%w %q", ErrUnknownKind, job.Deadline.Kind))
	}
	ctx, cancel := context.WithTimeout(ctx, e.opts.ActionTimeout)
	defer cancel()
	defer func() {
		if r := recover(); r != nil {
			e.log.Error().Str("key", job.Deadline.Key).Str("kind", job.Deadline.Kind).
				Interface("panic", r).Bytes("stack", debug.Stack()).Msg("action panicked")
			out = Failed(fmt.Errorf("action panicked: %v", r))
		}
	}()
	out = job.handler(ctx, job.Firing)
	if out.Result == Done && ctx.Err() != nil && errors.Is(ctx.Err(), context.DeadlineExceeded) {
		out = RetryLater(fmt.Errorf("action exceeded its timeout %s", e.opts.ActionTimeout))
	}
	return out
}

// Finish applies a run's outcome: retire, reschedule, retry once, or alert.
func (e *Engine) Finish(now time.Time, job Job, out Outcome) {
	d := job.Deadline
	e.stats.Runs++
	e.stats.Outcomes[out.Result.String()]++
	// Routine outcomes are not warnings: done, and a yield (a run started
	// or still going, a lease held) are what a healthy drain does.
	var logEv *zerolog.Event
	switch out.Result {
	case Done:
		logEv = e.log.Debug()
	case Yield:
		logEv = e.log.Info()
	default:
		logEv = e.log.Warn().AnErr("error", out.Err)
	}
	logEv.Str("key", d.Key).Str("kind", d.Kind).Int("attempt", job.Attempt).
		Str("outcome", out.Result.String()).Msg("action ran")

	retire := true
	switch out.Result {
	case Retry:
		if job.Attempt < e.opts.RetryAttempts {
			e.reschedule(d, now.Add(e.backoff(job.Attempt)))
			retire = false
		} else {
			e.alert(now, "retries_exhausted", d, fmt.Sprintf("gave up after %d runs: %v", job.Attempt, out.Err))
		}
	case Yield:
		// Waiting is not an attempt: a lease held, a run still going on.
		// Retries count the runs that failed, not the firings.
		e.attempts[d.Key]--
		e.reschedule(d, now.Add(out.After))
		retire = false
	case Conflict:
		if !e.retried[d.Key] {
			// exactly one retry, right away; the handler reads a fresh version
			e.retried[d.Key] = true
			e.record(job, out, true)
			e.queue.requeue(d)
			return
		}
		code := out.Alert
		if code == "" {
			code = d.Kind + "_conflict"
		}
		e.alert(now, code, d, fmt.Sprintf("conflict persisted after one retry: %v", out.Err))
	case Failure:
		code := out.Alert
		if code == "" {
			code = "action_failed"
		}
		e.alert(now, code, d, fmt.Sprint(out.Err))
	}
	delete(e.retried, d.Key)
	if retire {
		delete(e.attempts, d.Key)
	}
	e.record(job, out, !retire)
	e.queue.Done(d.Key)
}

// record writes the fire history entry and retires the deadline's record
// unless the key is pending again (re-pushed meanwhile, or rescheduled).
// Fired is when the runner handed the job out, so Fired-At is the
// lateness of the firing, not of the action's end.
func (e *Engine) record(job Job, out Outcome, rescheduled bool) {
	d := job.Deadline
	_, pending := e.wheel.Get(d.Key)
	keep := pending || rescheduled
	f := wakewheel.Fire{Key: d.Key, Kind: d.Kind, At: d.At, Fired: job.Now, Outcome: out.Result.String()}
	if e.completer != nil {
		e.completer.complete(d.Key, keep, f)
		return
	}
	if err := e.store.CompleteAll([]wakewheel.Finished{{Key: d.Key, Keep: keep, Fire: f}}); err != nil {
		e.log.Error().Err(err).Str("key", d.Key).Msg("recording a finished action failed; it may run again after a restart")
	}
}

// settle waits until no fire record that retires key is still being
// written (completer.go): a write of key's deadline record comes after it.
func (e *Engine) settle(key string) {
	if e.completer != nil {
		e.completer.settle(key)
	}
}

func (e *Engine) reschedule(d deadlines.Deadline, at time.Time) {
	if cur, ok := e.wheel.Get(d.Key); ok && !cur.At.After(at) {
		return // re-pushed meanwhile, earlier: that one stands
	}
	d.At = at
	d.Since = time.Time{}
	e.wheel.Reset(d)
	e.kinds.pending(d.Key, d.Kind)
	e.settle(d.Key)
	e.store.PutDeadline(d)
}

func (e *Engine) backoff(attempt int) time.Duration {
	b := e.opts.RetryBase
	for i := 1; i < attempt && b < e.opts.RetryCap; i++ {
		b *= 2
	}
	return min(b, e.opts.RetryCap)
}

func (e *Engine) alert(now time.Time, code string, d deadlines.Deadline, msg string) {
	e.stats.Alerts++
	e.log.Error().Str("alert", code).Str("key", d.Key).Str("kind", d.Kind).Msg(msg)
	a := wakewheel.Alert{Time: now, Code: code, Key: d.Key, Kind: d.Kind, Message: msg}
	if _, err := e.store.AddAlert(a); err != nil {
		e.log.Error().Err(err).Str("alert", code).Msg("recording an alert failed")
	}
}

// Alert records an alert raised outside an action (a detector falling back
// to polling, say).
func (e *Engine) Alert(now time.Time, code, key, msg string) {
	e.alert(now, code, deadlines.Deadline{Key: key}, msg)
}
