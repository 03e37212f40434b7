package roots

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/wakewheel/wakewheel/deadlines"
	"github.com/wakewheel/wakewheel/detectors"
	"github.com/wakewheel/wakewheel/internal/clock"
)

// root is one registered root. Fields are guarded by Manager.mu unless
// noted: the watcher callbacks touch only sig, and watchMu serializes the
// watcher's lifecycle (start, re-arm, close) without holding Manager.mu
// during a tree walk.
type root struct {
	rec  Record
	q    *backlog
	skip detectors.SkipPolicy
	gone bool // unwatched; the pointer may still be held by a run

	watchMu   sync.Mutex
	w         *detectors.Watcher // guarded by mu for reads, written under watchMu and mu
	watchFail string             // Watch returned an error; the root is polled
	rearm     bool               // a request named the root: re-arm an evicted watcher
	alerted   string             // the fallback reason last alerted

	// The change detection (its memory: the captured set, the stat
	// cache). The pointer is guarded by mu (a new skip policy replaces
	// it); the tracker itself is used by the detection handler alone.
	track *detectors.Tracker
	// Worker only (the detection handler).
	lockSince time.Time // .git/index.lock first seen by a waiting detection
	lockQuiet time.Time // since when no event came while it was held
	lockSeq   uint64    // sig.seq when lockQuiet was set
	ino       uint64    // the directory's inode at the last detection: finds a rename
	isGit     bool      // guarded by mu: the last detection found a work tree

	sig  signals    // written by watcher callbacks
	self selfWrites // paths written during the root's own runs (ownfiles.go)

	win atomic.Pointer[Windows] // the root's own windows (config file), or nil

	runs            runs          // the supervised ingest and reconcile runs (runs.go)
	gonedir         missing       // the directory went away (recover.go)
	costPerPath     time.Duration // the ingest's measured cost per path (batchsize.go)
	conflictRetried bool          // the reconcile's one conflict retry is spent

	st stats
}

// stats are what status reports beyond the record.
type stats struct {
	detections, ingested, batches uint64
	lastChanged                   int
	lastIngest, lastReconcile     time.Time
	lastReconcileResult           string
	lastErrorAt                   time.Time
	lockWaits                     uint64
}

// signals is what the watcher's goroutine hands to the pump: that events
// arrived, that the watcher fell back, and for plain directories which
// directories to rescan. It never takes Manager.mu.
type signals struct {
	pending  atomic.Bool   // events since the pump last extended the burst
	seq      atomic.Uint64 // events ever reported: a held index.lock with events is live
	seen     atomic.Uint64 // seq, the root's own writes and watcher restarts included: a detection's mark (ahead.go)
	detected atomic.Uint64 // seen at the last detection
	fellBack atomic.Bool   // the watcher left notify mode
	plain    atomic.Bool   // the root is a plain directory: track dirty directories

	mu    sync.Mutex
	dirty map[string]struct{} // parent directories of events
	full  bool                // too many to track: scan everything
}

// maxDirty bounds the dirty directories tracked between two detections of
// a plain directory; past it the next detection scans the whole tree.
const maxDirty = 4096

func (s *signals) event(rel string) {
	if s.plain.Load() {
		s.mu.Lock()
		if !s.full {
			if s.dirty == nil {
				s.dirty = make(map[string]struct{})
			}
			s.dirty[parentDir(rel)] = struct{}{}
			if len(s.dirty) > maxDirty {
				s.full, s.dirty = true, nil
			}
		}
		s.mu.Unlock()
	}
	s.seq.Add(1)
	s.pending.Store(true)
}

// takeDirty returns the dirty directories and whether to scan everything,
// and starts a new set.
func (s *signals) takeDirty() ([]string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	full := s.full
	dirs := make([]string, 0, len(s.dirty))
	for d := range s.dirty {
		dirs = append(dirs, d)
	}
	s.dirty, s.full = nil, false
	return dirs, full
}

func (s *signals) markFull() {
	s.seen.Add(1) // events may be missing: nothing computed before is taken
	s.mu.Lock()
	s.full, s.dirty = true, nil
	s.mu.Unlock()
}

func parentDir(rel string) string {
	for i := len(rel) - 1; i >= 0; i-- {
		if rel[i] == '/' {
			return rel[:i]
		}
	}
	return ""
}

func newRoot(rec Record, own []string, clk clock.Clock) (*root, error) {
	r := &root{rec: rec}
	r.self.now = clk.Now
	p, err := detectors.NewSkipPolicy(append(append([]string(nil), rec.Skip...), ownSkip(rec.Path, own)...)...)
	if err == nil {
		r.skip = p
	}
	r.track = detectors.NewTracker(rec.Path, r.skip)
	if err != nil {
		return r, fmt.Errorf("%w: %w", ErrBadSkip, err)
	}
	return r, nil
}

// closeWatcher stops the root's watcher, if any.
func (r *root) closeWatcher(m *Manager) {
	r.watchMu.Lock()
	defer r.watchMu.Unlock()
	m.mu.Lock()
	w := r.w
	r.w = nil
	m.mu.Unlock()
	if w != nil {
		_ = w.Close()
	}
}

// mode is the root's honest mode, reason and detail. Called with m.mu held.
func (r *root) mode() (mode, reason, detail string) {
	switch {
	case !r.rec.Armed:
		return ModeDisarmed, "", "not armed: nothing is watched or run"
	case r.dirMissingLocked():
		return r.missingMode()
	case r.watchFail != "":
		return ModePolling, "watch failed", r.watchFail
	case r.w == nil:
		return ModeResuming, "", "armed; the watcher starts at the root's first detection"
	}
	st := r.w.Status()
	switch st.Mode {
	case detectors.ModeNotify:
		return ModeNotify, "", ""
	case detectors.ModeEvicted:
		return ModeEvicted, st.Reason, st.Detail + "; polled on traffic, re-armed on its next use"
	case detectors.ModePolling:
		return ModePolling, st.Reason, st.Detail + "; changes are found by polling on traffic"
	}
	return ModeResuming, "", "the watcher was closed; it restarts at the next detection"
}

// The modes status reports.
const (
	ModeNotify   = "notify"   // watched: every change extends the burst
	ModePolling  = "polling"  // not (or no longer) watched: traffic polls it
	ModeEvicted  = "evicted"  // watches taken by the watch budget: polled, re-armed on next use
	ModeDisarmed = "disarmed" // registered, not armed
	ModeResuming = "resuming" // armed, the watcher not started yet (lazy resume)
)

// ensureWatch starts or re-arms the watcher of an armed root, on the
// worker, before a detection scans: when none runs yet, when it was closed,
// when it fell back for a transient reason (an overflow, a dead watcher),
// or when it was evicted and a request named the root since. It reports
// whether the watcher is evicted and left so (the detection re-arms it
// afterwards if it finds changes).
func (m *Manager) ensureWatch(ctx context.Context, r *root) (evicted bool) {
	r.watchMu.Lock()
	defer r.watchMu.Unlock()
	m.mu.Lock()
	if r.gone || !r.rec.Armed {
		m.mu.Unlock()
		return false
	}
	w, rearm := r.w, r.rearm
	m.mu.Unlock()
	if w != nil {
		st := w.Status()
		switch {
		case st.Mode == detectors.ModeNotify:
			return false
		case st.Mode == detectors.ModeEvicted && !rearm:
			return true
		case st.Mode == detectors.ModePolling && st.Reason != detectors.ReasonOverflow && st.Reason != detectors.ReasonWatcherDied &&
			st.Reason != detectors.ReasonRootGone:
			return false // a limit or a filesystem: stays polled until arm or restart
		}
		_ = w.Close()
	}
	m.startWatchLocked(ctx, r)
	return false
}

// startWatchLocked starts a watcher for r; r.watchMu is held.
func (m *Manager) startWatchLocked(ctx context.Context, r *root) {
	m.mu.Lock()
	path, skip := r.rec.Path, r.skip
	r.rearm = false
	m.mu.Unlock()
	r.sig.markFull() // events before this watcher are unknown: scan everything once
	w, err := detectors.Watch(detectors.WatchOptions{
		Root:   path,
		Skip:   skip,
		Budget: m.budget,
		OnEvent: func(rel string) {
			if h := m.opts.hooks; h != nil && h.onEvent != nil {
				h.onEvent(path, rel)
			}
			r.sig.seen.Add(1)
			if r.self.event(rel) {
				return // the root's command's own output
			}
			r.sig.event(rel)
			m.signal()
		},
		OnFallback: func(string) {
			r.sig.fellBack.Store(true)
			m.signal()
		},
		Logger: m.log,
	})
	m.mu.Lock()
	r.w, r.watchFail = w, ""
	if err != nil {
		r.watchFail = err.Error()
	}
	mode, reason, detail := r.mode()
	alert := mode == ModePolling && r.alerted != reason+detail
	switch {
	case alert:
		r.alerted = reason + detail
	case mode == ModeNotify:
		r.alerted = ""
	}
	m.mu.Unlock()
	if alert {
		m.log.Warn().Str("root", path).Str("reason", reason).Str("detail", detail).Msg("root is polled, not watched")
		m.alert(ctx, AlertRootPolling, Key(KindDetect, path), fmt.Sprintf("%s: polling (%s): %s", path, reason, detail))
	}
}

// Alert codes the manager raises itself; the engine raises the others
// (retries_exhausted for a drain, action_failed).
const (
	AlertRootPolling       = "root_polling"
	AlertReconcileConflict = "auto_reconcile_conflict"
	AlertReconcileFailed   = "reconcile_failed"
)

func (m *Manager) signal() {
	select {
	case m.pumpC <- struct{}{}:
	default:
	}
}

// pump turns watcher signals into deadlines: every root with events since
// the last round gets its burst extended (one Do per round however many
// events came), and a root whose watcher fell back gets a detection now.
// The watcher's goroutine only sets flags, so a slow engine never stalls
// the kernel queue. After a round that changed something the pump rests
// pumpCoalesce before the next: a checkout's 30,000 events cost the
// engine one extension per root every pumpCoalesce, not one per event
// (each a hand-off between three goroutines), and a burst's silence
// starts at most pumpCoalesce after its last event.
func (m *Manager) pump() {
	defer m.wg.Done()
	rest := false
	due := make(map[*root]time.Time) // roots to compute ahead once quiet (ahead.go)
	wake := clock.Real{}.NewTimer(time.Hour)
	wake.Stop()
	for {
		if rest {
			t := clock.Real{}.NewTimer(pumpCoalesce) // real time: it paces goroutines, not deadlines
			select {
			case <-m.ctx.Done():
				t.Stop()
				return
			case <-t.C():
			}
		}
		var quiet <-chan time.Time
		if next := m.startAheads(clock.Real{}.Now(), due); !next.IsZero() {
			wake.Reset(next.Sub(clock.Real{}.Now()))
			quiet = wake.C()
		} else {
			wake.Stop()
		}
		select {
		case <-m.ctx.Done():
			wake.Stop()
			return
		case <-m.pumpC:
		case <-quiet:
			rest = false
			continue
		}
		var muts []deadlines.Mutation
		var fell []*root
		now := clock.Real{}.Now()
		m.mu.Lock()
		for path, r := range m.roots {
			if r.sig.pending.Swap(false) {
				muts = append(muts, deadlines.Mutation{Op: deadlines.OpExtend, Key: Key(KindBurst, path), Kind: KindBurst,
					Window: m.windows(r).BurstSilence, Cap: m.windows(r).BurstCap})
				m.aheadSoon(r, now, due)
			}
			if r.sig.fellBack.Swap(false) {
				muts = append(muts, pushNow(KindDetect, path))
				fell = append(fell, r)
				r.sig.markFull()
			}
		}
		m.mu.Unlock()
		m.apply(m.ctx, muts...)
		for _, r := range fell {
			m.noteFallback(r)
		}
		rest = len(muts) > 0
	}
}

// pumpCoalesce is the pump's rest after a round that extended a burst.
const pumpCoalesce = 10 * time.Millisecond

// noteFallback counts an overflow and alerts a fall to polling (once per
// reason). An eviction is logged by the detectors and shown in status.
func (m *Manager) noteFallback(r *root) {
	m.mu.Lock()
	if r.w == nil {
		m.mu.Unlock()
		return
	}
	st := r.w.Status()
	path := r.rec.Path
	if st.Reason == detectors.ReasonOverflow {
		r.rec.Overflows++
	}
	// A root whose directory went away is said by its detection (root
	// removed, or root_renamed), not as a fall to polling.
	alert := st.Mode == detectors.ModePolling && st.Reason != detectors.ReasonRootGone && r.alerted != st.Reason+st.Detail
	if alert {
		r.alerted = st.Reason + st.Detail
	}
	m.mu.Unlock()
	if alert {
		m.alert(m.ctx, AlertRootPolling, Key(KindDetect, path), fmt.Sprintf("%s: watcher fell back to polling (%s): %s", path, st.Reason, st.Detail))
	}
}
