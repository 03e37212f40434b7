package roots

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rs/zerolog"
	"github.com/wakewheel/wakewheel/deadlines"
	"github.com/wakewheel/wakewheel/detectors"
	"github.com/wakewheel/wakewheel/internal/clock"
	"github.com/wakewheel/wakewheel/scheduler"
	"github.com/wakewheel/wakewheel/store"
)

// Store is what the manager needs of persistence; *store.DB satisfies it.
// A synced Write is durable when it returns.
type Store interface {
	Write(sync bool, ops ...store.Op) error
	Scan(ns, prefix string, fn func(key string, val []byte) error) error
	Sync() error
}

// Scheduler is the runner's single entry point; *scheduler.Runner
// satisfies it. fn runs on the engine's goroutine and must not block.
type Scheduler interface {
	Do(ctx context.Context, fn func(e *scheduler.Engine, now time.Time)) error
}

// Options are the manager's numbers (configs' detect.* keys). Zero values
// take the defaults, the registered numbers.
type Options struct {
	BurstSilence   time.Duration // silence that ends a burst (500ms)
	BurstCap       time.Duration // longest burst (5s)
	ReconcileQuiet time.Duration // quiet after the last drain before a reconcile (45s)
	ReconcileCap   time.Duration // longest a reconcile waits for quiet (10m)
	DrainBudget    int           // paths handed to the first ingest run of a root (32)
	DrainTarget    time.Duration // how long one ingest run should take; sizes later batches (1s)
	DrainMaxBatch  int           // most paths handed to one ingest run (4096)
	IndexLockWait  time.Duration // longest a detection waits for .git/index.lock to go while no file changes (10s)
	IndexLockMax   time.Duration // longest it waits while files keep changing under the lock (2m)
	WatchBudget    int           // directories watched across roots (8192)
	CommandTimeout time.Duration // one ingest or reconcile run (10m)
	// ResumeDelay is how long after a start the armed roots' first
	// detections and drains are due: the daemon serves first (200ms).
	ResumeDelay time.Duration
	// PollInterval is the least time between two detections that traffic
	// asks for on one polling root (default: BurstCap, the longest a
	// watched root waits under churn).
	PollInterval time.Duration
	// Shell runs command lines as Shell -c LINE (default /bin/sh).
	Shell string
	// OnDetected, when set, is told of every detection that captured new
	// paths (the daemon posts a machine digest to the lanes subscribed to
	// the root). It runs on the worker: it must not block, and a panic in it
	// is recovered and logged.
	OnDetected func(Detection)
	// OwnFiles are the daemon's own files and directories (its log file,
	// store, socket), absolute: a root that holds one leaves it out
	// (ownfiles.go), so the daemon never feeds itself.
	OwnFiles []string
	Clock    clock.Clock // default: the wall clock
	Logger   zerolog.Logger

	hooks *testHooks
}

func (o Options) withDefaults() Options {
	def := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	def(&o.BurstSilence, 500*time.Millisecond)
	def(&o.BurstCap, 5*time.Second)
	def(&o.ReconcileQuiet, 45*time.Second)
	def(&o.ReconcileCap, 10*time.Minute)
	def(&o.IndexLockWait, 10*time.Second)
	def(&o.IndexLockMax, 2*time.Minute)
	def(&o.CommandTimeout, 10*time.Minute)
	def(&o.ResumeDelay, 200*time.Millisecond)
	def(&o.PollInterval, o.BurstCap)
	o.BurstCap = deadlines.CapOf(o.BurstSilence, o.BurstCap)
	o.ReconcileCap = deadlines.CapOf(o.ReconcileQuiet, o.ReconcileCap)
	def(&o.DrainTarget, time.Second)
	if o.DrainMaxBatch <= 0 {
		o.DrainMaxBatch = 4096
	}
	if o.DrainBudget <= 0 {
		o.DrainBudget = 32
	}
	if o.WatchBudget <= 0 {
		o.WatchBudget = 8192
	}
	if o.Shell == "" {
		o.Shell = "/bin/sh"
	}
	if o.Clock == nil {
		o.Clock = clock.Real{}
	}
	return o
}

// testHooks let tests slow the event consumer down (to overflow the
// kernel queue on purpose) and watch the manager.
type testHooks struct {
	onEvent func(root, rel string)
}

// Manager is the daemon side of the Gardener behaviours: the root registry,
// the backlogs, the watchers, the supervised ingest and reconcile runs and
// the leases. See the package documentation.
type Manager struct {
	opts   Options
	db     Store
	log    zerolog.Logger
	budget *detectors.Budget

	mu     sync.Mutex // guards what follows and every root's fields (see root)
	roots  map[string]*root
	leases map[string]Lease
	funcs  map[string]Handlers
	nextID uint64
	sched  Scheduler

	ctx      context.Context // ends at Close: stops goroutines, kills commands
	cancel   context.CancelFunc
	wg       sync.WaitGroup
	pumpC    chan struct{} // a root has events or a fallback to hand to the engine
	trafficC chan struct{} // traffic arrived
	started  atomic.Bool
	active   atomic.Int64 // supervised runs not finished (finish included)
}

// Open loads the registry and the backlogs from db. Register the handlers
// on the engine, Resume, then Attach the runner.
func Open(db Store, opts Options) (*Manager, error) {
	opts = opts.withDefaults()
	ctx, cancel := context.WithCancel(context.Background())
	m := &Manager{
		opts:     opts,
		db:       db,
		log:      opts.Logger,
		budget:   detectors.NewBudget(opts.WatchBudget),
		roots:    make(map[string]*root),
		leases:   make(map[string]Lease),
		funcs:    make(map[string]Handlers),
		nextID:   1,
		ctx:      ctx,
		cancel:   cancel,
		pumpC:    make(chan struct{}, 1),
		trafficC: make(chan struct{}, 1),
	}
	if err := m.load(); err != nil {
		cancel()
		return nil, err
	}
	return m, nil
}

func (m *Manager) load() error {
	var fix []store.Op
	err := m.db.Scan(nsRoots, "", func(key string, val []byte) error {
		rec, err := decodeRecord(key, val)
		if err != nil {
			return err
		}
		r, err := newRoot(rec, m.opts.OwnFiles, m.opts.Clock)
		if err != nil {
			m.log.Warn().Err(err).Str("root", rec.Path).Msg("root record: skip entries ignored")
		}
		m.roots[rec.Path] = r
		m.nextID = max(m.nextID, rec.ID+1)
		return nil
	})
	if err != nil {
		return fmt.Errorf("roots: load registry: %w", err)
	}
	byID := make(map[uint64]*root, len(m.roots))
	for _, r := range m.roots {
		if r.rec.ID == 0 { // written before roots had IDs
			r.rec.ID = m.nextID
			m.nextID++
			fix = append(fix, store.PutOp(nsRoots, r.rec.Path, encodeRecord(r.rec)))
		}
		r.q = newBacklog(r.rec.ID)
		byID[r.rec.ID] = r
	}
	var orphans []store.Op
	err = m.db.Scan(nsQueue, "", func(key string, val []byte) error {
		id, seq, ok := parseQueueKey(key)
		r := byID[id]
		if !ok || r == nil {
			orphans = append(orphans, store.DeleteOp(nsQueue, key)) // a root removed mid-way
			return nil
		}
		if !r.q.load(seq, val) {
			orphans = append(orphans, store.DeleteOp(nsQueue, key)) // every path already queued before it
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("roots: load backlogs: %w", err)
	}
	err = m.db.Scan(nsMemory, "", func(key string, val []byte) error {
		r := m.roots[key]
		if r == nil {
			orphans = append(orphans, store.DeleteOp(nsMemory, key))
			return nil
		}
		if err := r.track.Restore(val); err != nil {
			m.log.Warn().Err(err).Str("root", key).Msg("the root's memory of its last capture is unreadable; its dirty files are handed to ingest once more")
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("roots: load capture memories: %w", err)
	}
	if ops := append(fix, orphans...); len(ops) > 0 {
		if err := m.db.Write(true, ops...); err != nil {
			return fmt.Errorf("roots: upgrade records: %w", err)
		}
	}
	return nil
}

// Register sets the handlers of the kinds burst, detect, drain, reconcile
// and lease on eng. Call it before the engine's first Due.
func (m *Manager) Register(eng *scheduler.Engine) {
	eng.Register(KindBurst, m.detectHandler)
	eng.Register(KindDetect, m.detectHandler)
	eng.Register(KindDrain, m.drainHandler)
	eng.Register(KindReconcile, m.reconcileHandler)
	eng.Register(KindLease, m.leaseHandler)
}

// Resume derives the deadlines that durable facts imply, on the engine
// that holds every reloaded deadline: each armed root gets a detection
// (which re-arms its watcher) ResumeDelay from now, a non-empty backlog a
// drain, a reconcile interrupted by the stop runs within the quiet window;
// live leases are read back from their deadlines.
func (m *Manager) Resume(eng *scheduler.Engine, now time.Time) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	for d := range eng.OfKind(KindLease) { // O(leases) when the engine indexes them
		m.leases[d.Key[len(KindLease)+1:]] = leaseFromDeadline(d)
	}
	at := now.Add(m.opts.ResumeDelay)
	for path, r := range m.roots {
		if !r.rec.Armed {
			continue
		}
		muts := []deadlines.Mutation{{Op: deadlines.OpPush, Key: Key(KindDetect, path), Kind: KindDetect, At: at}}
		if r.q.Len() > 0 {
			muts = append(muts, deadlines.Mutation{Op: deadlines.OpPush, Key: Key(KindDrain, path), Kind: KindDrain, At: at})
		}
		if _, ok := eng.Get(Key(KindReconcile, path)); ok {
			muts = append(muts, deadlines.Mutation{Op: deadlines.OpPush, Key: Key(KindReconcile, path), Kind: KindReconcile, At: now.Add(m.windows(r).ReconcileQuiet)})
		}
		for _, mu := range muts {
			if _, err := eng.Apply(now, mu); err != nil {
				return fmt.Errorf("roots: resume %s: %w", path, err)
			}
		}
	}
	return nil
}

// Attach gives the manager the runner and starts its two goroutines: the
// event pump (watcher events to burst extends) and the traffic ticker.
func (m *Manager) Attach(s Scheduler) {
	m.mu.Lock()
	m.sched = s
	m.mu.Unlock()
	if m.started.Swap(true) {
		return
	}
	m.wg.Add(2)
	go m.pump()
	go m.trafficLoop()
}

// Close stops the goroutines, kills running commands (their batches stay
// in the backlog), and closes every watcher.
func (m *Manager) Close() {
	m.cancel()
	m.mu.Lock()
	rs := make([]*root, 0, len(m.roots))
	for _, r := range m.roots {
		rs = append(rs, r)
	}
	m.mu.Unlock()
	for _, r := range rs {
		r.closeWatcher(m)
	}
	m.wg.Wait()
}

// do runs fn on the engine through the runner. It must not be called with
// m.mu held: fn may take it.
func (m *Manager) do(ctx context.Context, fn func(e *scheduler.Engine, now time.Time)) error {
	m.mu.Lock()
	s := m.sched
	m.mu.Unlock()
	if s == nil {
		return fmt.Errorf("roots: not attached to a runner")
	}
	return s.Do(ctx, fn)
}

// apply applies mutations through the runner, logging failures: callers
// are detectors and completions, which never fail anyone's request.
func (m *Manager) apply(ctx context.Context, muts ...deadlines.Mutation) {
	if len(muts) == 0 {
		return
	}
	err := m.do(ctx, func(e *scheduler.Engine, now time.Time) {
		for _, mu := range muts {
			if mu.Op == deadlines.OpPush && mu.At.IsZero() {
				mu.At = now
			}
			if _, err := e.Apply(now, mu); err != nil {
				m.log.Error().Err(err).Str("key", mu.Key).Msg("roots: applying a deadline failed")
			}
		}
	})
	if err != nil && ctx.Err() == nil {
		m.log.Warn().Err(err).Msg("roots: the runner did not take a deadline change")
	}
}

// alert records an alert through the runner.
func (m *Manager) alert(ctx context.Context, code, key, msg string) {
	_ = m.do(ctx, func(e *scheduler.Engine, now time.Time) { e.Alert(now, code, key, msg) })
}

func pushNow(kind, path string) deadlines.Mutation {
	return deadlines.Mutation{Op: deadlines.OpPush, Key: Key(kind, path), Kind: kind}
}

func (m *Manager) lookup(path string) *root {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.roots[path]
}
