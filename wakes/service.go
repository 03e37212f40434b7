package wakes

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"sync"
	"time"

	"github.com/rs/zerolog"
	"github.com/wakewheel/wakewheel/deadlines"
	"github.com/wakewheel/wakewheel/internal/clock"
	ob "github.com/wakewheel/wakewheel/obligations"
	"github.com/wakewheel/wakewheel/scheduler"
	"github.com/wakewheel/wakewheel/store"
)

// Sentinel errors of the service (the obligations package's sentinels pass
// through unchanged).
var (
	// ErrClosed: the service is shutting down. It wraps
	// scheduler.ErrStopped, so adapters answer "stopping".
	ErrClosed = fmt.Errorf("wakes: service closed: %w", scheduler.ErrStopped)
	// ErrStore: the store failed a write; the state was reloaded from what
	// is durable, and the call did not happen.
	ErrStore = errors.New("wakes: store write failed")
	// ErrNotParked: resume without a checkpoint on a lane never parked. It
	// wraps obligations.ErrBadCheckpoint.
	ErrNotParked = fmt.Errorf("wakes: lane was never parked: %w", ob.ErrBadCheckpoint)
)

// Store is what the service needs of persistence; *store.DB satisfies it.
// A synced Write is durable when it returns.
type Store interface {
	Write(sync bool, ops ...store.Op) error
	Scan(ns, prefix string, fn func(key string, val []byte) error) error
	// ScanFrom is Scan from the first key >= start.
	ScanFrom(ns, prefix, start string, fn func(key string, val []byte) error) error
	Get(ns, key string) ([]byte, bool, error)
}

// Runner is the single entry point of the scheduler; *scheduler.Runner
// satisfies it.
type Runner interface {
	Do(ctx context.Context, fn func(e *scheduler.Engine, now time.Time)) error
}

// Options configure a Service. Policies and Clock are required.
type Options struct {
	Policies ob.Policies
	Clock    clock.Clock
	Logger   zerolog.Logger
	// Hook returns the operator's wake hook command for a lane ("" for
	// none). It comes from the daemon's configuration only: nothing that
	// reaches the service through the API can set it.
	Hook func(lane string) string
	// HookTimeout bounds one run of a hook (default DefaultHookTimeout).
	HookTimeout time.Duration
	// OnWake, when set, is told about every durable wake (a post, a
	// fallback re-wake), after the lane's waiters: the lane runner and the
	// pane delivery hang here. It must not block.
	OnWake func(ob.Wake)
	// Declared reports whether the operator's config names a lane: a wait
	// on such a lane opens it (it is no typo), where a wait on any other
	// unknown lane is refused.
	Declared func(lane string) bool
	// MaxLanes caps the number of lanes (obligations.max_lanes); 0 means
	// no cap.
	MaxLanes int
	// OnFailure, when set, is told about a failure the service recorded
	// (a failed store write, a failed hook), e.g. to send a fail beacon.
	OnFailure func(msg string)
	// Retention is how long consumed obligations and their ids are kept
	// (zero keeps everything forever).
	Retention ob.Retention
}

// Service is the daemon's obligations state and its I/O. It is safe for
// concurrent use.
type Service struct {
	opts  Options
	log   zerolog.Logger
	db    Store
	clock clock.Clock

	mu      sync.Mutex
	st      *ob.State
	ledger  uint64 // last ledger sequence number used
	broken  error  // set when a failed write could not be recovered
	closed  bool
	waiters waiters
	// deliveries by lane since the process started, for metrics: wakes that
	// handed out a digest, and wakes that found nothing unconsumed.
	wakes, noops map[string]uint64

	pipe  *pipeline
	hooks *hooks

	compacted int // obligations dropped by the compaction run so far (its handler's only)

	runnerMu sync.Mutex
	runner   Runner
	attached chan struct{}
}

// Open restores the service from the store and starts its commit
// pipeline. It returns the deadline mutations that re-derive the fallback
// re-wakes; apply them (Engine.ApplyAll) before the runner starts. Call
// Attach once the runner runs, and Close at shutdown.
func Open(db Store, opts Options) (*Service, []deadlines.Mutation, error) {
	if opts.Clock == nil {
		return nil, nil, errors.New("wakes: Options.Clock is required")
	}
	if opts.HookTimeout <= 0 {
		opts.HookTimeout = DefaultHookTimeout
	}
	s := &Service{opts: opts, log: opts.Logger, db: db, clock: opts.Clock, attached: make(chan struct{})}
	st, muts, next, err := s.load()
	if err != nil {
		return nil, nil, err
	}
	s.st, s.ledger = st, next
	s.waiters.init()
	s.hooks = newHooks(opts.Hook, opts.HookTimeout, opts.Clock, s.log, s.failure)
	s.pipe = newPipeline(s)
	return s, muts, nil
}

// load reads every record and ledger counter from the store and restores a
// State at now.
func (s *Service) load() (*ob.State, []deadlines.Mutation, uint64, error) {
	recs, err := loadRecords(s.db)
	if err != nil {
		return nil, nil, 0, err
	}
	next, err := loadLedgerNext(s.db)
	if err != nil {
		return nil, nil, 0, err
	}
	now := s.clock.Now()
	st, eff, err := ob.Restore(s.opts.Policies, recs, now)
	if err != nil {
		return nil, nil, 0, fmt.Errorf("wakes: restore: %w", err)
	}
	st.SetMaxLanes(s.opts.MaxLanes)
	reff, err := st.SetRetention(s.opts.Retention, now)
	if err != nil {
		return nil, nil, 0, err
	}
	return st, append(eff.Deadlines, reff.Deadlines...), next, nil
}

// Attach hands the service the running runner: from then on the pipeline
// applies deadline mutations through it. Handlers that fire before Attach
// wait for it.
func (s *Service) Attach(r Runner) {
	s.runnerMu.Lock()
	defer s.runnerMu.Unlock()
	if s.runner == nil {
		s.runner = r
		close(s.attached)
	}
}

// Close finishes what is queued, stops the pipeline and the hooks. Calls
// after Close return ErrClosed. Close is meant to run before the runner
// stops, so queued mutations still reach it.
func (s *Service) Close() {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	s.closed = true
	s.waiters.closeAll()
	s.mu.Unlock()
	s.pipe.close()
	s.hooks.close()
}

// begin locks the state for a change. It fails, unlocked, once the
// service is closed or broken.
func (s *Service) begin() error {
	s.mu.Lock()
	switch {
	case s.closed:
		s.mu.Unlock()
		return ErrClosed
	case s.broken != nil:
		err := s.broken
		s.mu.Unlock()
		return err
	}
	return nil
}

// change is the one way a call reads or changes the state: fn runs with
// the state locked, at now, and returns the ticket of what it enqueued
// (commitLocked, settleLocked; nil for nothing to wait on); the caller then
// waits for that ticket outside the lock. Whatever fn computed is durable,
// applied and delivered when change returns nil.
func (s *Service) change(ctx context.Context, fn func(now time.Time) (*item, error)) error {
	if err := s.begin(); err != nil {
		return err
	}
	t, err := fn(s.clock.Now())
	s.mu.Unlock()
	if err != nil {
		return err
	}
	return t.wait(ctx)
}

// commitLocked enqueues eff (the caller holds mu) and returns the ticket
// to wait on after unlocking.
func (s *Service) commitLocked(eff ob.Effects) *item {
	return s.pipe.enqueue(s.itemOf(eff))
}

// settleLocked commits eff, or, when there is nothing to do, returns a
// barrier: an answer computed from the state is given only once every
// change before it is durable (the caller holds mu).
func (s *Service) settleLocked(eff ob.Effects) *item {
	if eff.Empty() {
		return s.pipe.barrier()
	}
	return s.commitLocked(eff)
}

// Post adds o to its lane, durably, and returns it (with Duplicate set
// when o.ID was posted before: then nothing changes). An empty ID is
// replaced by a random one. The lane must exist (opened, or posted to
// before) unless create is set: a post to a lane nobody consumes is most
// likely a typo, and would never be read.
func (s *Service) Post(ctx context.Context, o ob.Obligation, create bool) (ob.Obligation, error) {
	var got ob.Obligation
	err := s.change(ctx, func(now time.Time) (*item, error) {
		var eff ob.Effects
		var err error
		if got, eff, err = s.postLocked(o, create, now); err != nil {
			return nil, err
		}
		return s.settleLocked(eff), nil
	})
	return got, err
}

// postLocked is the one home of a post's rules (the caller holds mu): the
// lane must exist unless create, a re-posted id (live, or compacted within
// the dedup horizon) is answered with its original and changes nothing,
// anything else is added to its lane. It returns the obligation as stored
// and the effects to commit (none for a duplicate: its answer waits only
// for what is before it).
func (s *Service) postLocked(o ob.Obligation, create bool, now time.Time) (ob.Obligation, ob.Effects, error) {
	if o.ID == "" {
		o.ID = newID()
	}
	if _, ok := s.st.Lane(o.Lane); !ok && !create && ob.ValidateLane(o.Lane) == nil {
		return ob.Obligation{}, ob.Effects{}, fmt.Errorf("%w %q: no consumer opened it, so nothing would read the post", ob.ErrUnknownLane, o.Lane)
	}
	if got, dup, err := s.absorbLocked(o, now); err != nil || dup {
		return got, ob.Effects{}, err
	}
	got, eff, err := s.st.Post(o, now)
	if err != nil || got.Duplicate {
		// A duplicate's original may still be on its way to disk: the
		// caller's barrier answers it once everything before it is durable.
		return got, ob.Effects{}, err
	}
	return got, eff, nil
}

// OpenLane creates an empty lane (durably) so producers may post to it.
// Opening an existing lane changes nothing.
func (s *Service) OpenLane(ctx context.Context, lane string) (ob.LaneStatus, error) {
	var st ob.LaneStatus
	err := s.change(ctx, func(now time.Time) (*item, error) {
		eff, err := s.st.Open(lane, now)
		if err != nil {
			return nil, err
		}
		st, _ = s.st.Lane(lane)
		return s.commitLocked(eff), nil
	})
	return st, err
}

// CloseLane removes a lane and everything in it (durably) and returns its
// status as it was: refused with obligations.ErrLaneBusy while it holds
// unconsumed obligations, unless force. Its waiters wake and learn that
// the lane is gone.
func (s *Service) CloseLane(ctx context.Context, lane string, force bool) (ob.LaneStatus, error) {
	var was ob.LaneStatus
	err := s.change(ctx, func(now time.Time) (*item, error) {
		was, _ = s.st.Lane(lane)
		eff, err := s.st.Close(lane, force, now)
		if err != nil {
			return nil, err
		}
		s.waiters.signal(lane)
		return s.commitLocked(eff), nil
	})
	if err != nil {
		return was, err
	}
	// Its tombstones go too: nothing sweeps those of a lane that is gone.
	_, err = s.sweep(ob.Sweep{Lane: lane, Before: time.Unix(1<<62, 0)})
	return was, err
}

// SetMaxLanes puts a new lane cap in force (a live config reload).
func (s *Service) SetMaxLanes(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.opts.MaxLanes = n
	s.st.SetMaxLanes(n)
}

// Lanes returns the status of every lane.
func (s *Service) Lanes(ctx context.Context) ([]ob.LaneStatus, error) {
	var out []ob.LaneStatus
	err := s.change(ctx, func(time.Time) (*item, error) {
		out = s.st.Lanes()
		return s.pipe.barrier(), nil
	})
	return out, err
}

// Digest returns the lane's digest without delivering it.
func (s *Service) Digest(ctx context.Context, lane, who string) (ob.Digest, error) {
	var d ob.Digest
	err := s.change(ctx, func(now time.Time) (*item, error) {
		var err error
		if d, err = s.st.Digest(lane, who, now); err != nil {
			return nil, err
		}
		return s.pipe.barrier(), nil
	})
	return d, err
}

// Ack consumes the lane up to upto (cumulative; synced before it returns)
// and returns the lane's status afterwards. action names a consequential
// action taken (a qualified action in the ledger). An ack at or below
// CONSUMED changes nothing and answers once what it covers is durable.
func (s *Service) Ack(ctx context.Context, lane string, upto uint64, action string) (ob.LaneStatus, error) {
	var st ob.LaneStatus
	err := s.change(ctx, func(now time.Time) (*item, error) {
		eff, err := s.st.Ack(lane, upto, action, now)
		if err != nil {
			return nil, err
		}
		st, _ = s.st.Lane(lane)
		return s.settleLocked(eff), nil
	})
	return st, err
}

// Park checkpoints the lane's CONSUMED cursor (phase one of a two-phase
// park). Once it returns, the checkpoint is durable and the agent may clear
// its context.
func (s *Service) Park(ctx context.Context, lane string) (ob.Checkpoint, error) {
	var cp ob.Checkpoint
	err := s.change(ctx, func(now time.Time) (*item, error) {
		c, eff, err := s.st.Park(lane, now)
		if err != nil {
			return nil, err
		}
		cp = c
		return s.commitLocked(eff), nil
	})
	return cp, err
}

// Resume delivers the digest since a checkpoint: cp, or the lane's last
// park when cp is nil.
func (s *Service) Resume(ctx context.Context, lane, who string, cp *ob.Checkpoint) (ob.Digest, error) {
	var d ob.Digest
	err := s.change(ctx, func(now time.Time) (*item, error) {
		from, err := s.checkpointLocked(lane, cp)
		if err != nil {
			return nil, err
		}
		got, eff, err := s.st.Resume(from, who, now)
		if err != nil {
			return nil, err
		}
		d = got
		return s.commitLocked(eff), nil
	})
	return d, err
}

// checkpointLocked is the checkpoint Resume starts from: cp, or the
// lane's last park when cp is nil (the caller holds mu).
func (s *Service) checkpointLocked(lane string, cp *ob.Checkpoint) (ob.Checkpoint, error) {
	if cp != nil {
		if cp.Lane != lane {
			return ob.Checkpoint{}, fmt.Errorf("%w: checkpoint is for lane %s, not %s", ob.ErrBadCheckpoint, cp.Lane, lane)
		}
		return *cp, nil
	}
	st, ok := s.st.Lane(lane)
	switch {
	case !ok:
		return ob.Checkpoint{Lane: lane}, nil // Resume reports the unknown lane
	case st.Parked == nil:
		return ob.Checkpoint{}, fmt.Errorf("%w: %s has no checkpoint; park it first", ErrNotParked, lane)
	}
	return *st.Parked, nil
}

// SetPolicies puts new class policies in force (a live config reload): the
// state is rebuilt from its own records under the new table, and the
// fallback re-wakes are pushed no later than the new cadence allows (a
// pending one is never moved later). Later posts are checked against the
// new body limit.
func (s *Service) SetPolicies(ctx context.Context, p ob.Policies) error {
	return s.change(ctx, func(now time.Time) (*item, error) {
		st, eff, err := ob.Restore(p, s.st.Records(now), now)
		if err != nil {
			return nil, err
		}
		st.SetMaxLanes(s.opts.MaxLanes)
		reff, err := st.SetRetention(s.opts.Retention, now)
		if err != nil {
			return nil, err
		}
		s.st, s.opts.Policies = st, p
		return s.commitLocked(ob.Effects{Deadlines: append(eff.Deadlines, reff.Deadlines...)}), nil
	})
}

// Fire handles a redeliver deadline: it re-wakes the lane if the class
// still holds unconsumed work (a firing that finds none waits for
// nothing).
func (s *Service) Fire(ctx context.Context, key string) error {
	return s.change(ctx, func(now time.Time) (*item, error) {
		eff, err := s.st.Fire(key, now)
		if err != nil || eff.Empty() {
			return nil, err
		}
		return s.commitLocked(eff), nil
	})
}

// failure logs and records a failure, and tells OnFailure.
func (s *Service) failure(code, key, msg string) {
	s.log.Error().Str("alert", code).Str("key", key).Msg(msg)
	s.runnerMu.Lock()
	r := s.runner
	s.runnerMu.Unlock()
	if r != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		_ = r.Do(ctx, func(e *scheduler.Engine, now time.Time) { e.Alert(now, code, key, msg) })
		cancel()
	}
	if s.opts.OnFailure != nil {
		s.opts.OnFailure(code + ": " + msg)
	}
}

// newID returns a random idempotency id for a post that came without one.
func newID() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return "auto-" + hex.EncodeToString(b[:])
}

// Deliveries returns, by lane, the wakes that handed out a digest and the
// no-op wakes, since the process started.
func (s *Service) Deliveries() (wakes, noops map[string]uint64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return maps.Clone(s.wakes), maps.Clone(s.noops)
}

func (s *Service) countDeliveryLocked(lane string, noop bool) {
	if s.wakes == nil {
		s.wakes, s.noops = map[string]uint64{}, map[string]uint64{}
	}
	if noop {
		s.noops[lane]++
	} else {
		s.wakes[lane]++
	}
}
