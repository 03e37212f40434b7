package roots

import (
	"context"
	"fmt"
	"time"

	"github.com/wakewheel/wakewheel/deadlines"
	"github.com/wakewheel/wakewheel/detectors"
	"github.com/wakewheel/wakewheel/scheduler"
	"github.com/wakewheel/wakewheel/store"
)

// detectHandler runs a detection of the root named by a burst or detect
// deadline: (re-)arm the watcher, wait (bounded, without blocking the
// worker) while .git/index.lock exists, compute the changed set, capture
// it durably, and schedule a drain.
func (m *Manager) detectHandler(ctx context.Context, f scheduler.Firing) scheduler.Outcome {
	path := rootOfKey(f.Deadline.Kind, f.Deadline.Key)
	r := m.lookup(path)
	if r == nil {
		return scheduler.Succeeded()
	}
	m.mu.Lock()
	armed := r.rec.Armed && !r.gone
	m.mu.Unlock()
	if !armed {
		return scheduler.Succeeded()
	}
	now := f.Now
	ino, there := detectors.DirIdentity(path)
	if !there {
		return m.rootMissing(ctx, r, path, now)
	}
	r.ino = ino
	back := m.rootBack(r, path)
	evicted := m.ensureWatch(ctx, r)
	m.mu.Lock()
	track := r.track
	m.mu.Unlock()

	isGit, locked := track.Probe()
	r.sig.plain.Store(!isGit)
	if locked {
		seq := r.sig.seq.Load()
		if r.lockSince.IsZero() {
			r.lockSince, r.lockQuiet, r.lockSeq = now, now, seq
			m.mu.Lock()
			r.st.lockWaits++
			m.mu.Unlock()
		} else if seq != r.lockSeq {
			// Files changed since the last look: the lock's holder is at
			// work (a big checkout on a busy machine), not gone.
			r.lockQuiet, r.lockSeq = now, seq
		}
		quiet, held := now.Sub(r.lockQuiet), now.Sub(r.lockSince)
		if quiet < m.opts.IndexLockWait && held < m.opts.IndexLockMax {
			// A git command is changing the index (a checkout): detect once
			// it is done. Its lock going away is an event that extends the
			// burst; the yield bounds the wait for a polled root.
			return scheduler.YieldFor(min(m.windows(r).BurstSilence, m.opts.IndexLockWait-quiet, m.opts.IndexLockMax-held))
		}
		why := ".git/index.lock stayed with no file changing for detect.index_lock_wait"
		if held >= m.opts.IndexLockMax {
			why = ".git/index.lock outlived detect.index_lock_max"
		}
		m.log.Warn().Str("root", path).Dur("waited", held).Msg(why + "; taken as stale, detecting anyway")
	} else {
		r.lockSince = time.Time{}
	}

	res, err := track.Detect(ctx, m.scanOf(r))
	if err != nil {
		m.noteError(r, now, err)
		return scheduler.RetryLater(fmt.Errorf("detection of %s: %w", path, err))
	}
	if res.Inventory {
		m.log.Warn().Str("root", path).Msg("since ref no longer exists; inventorying every tracked file")
	}
	paths, muted := r.self.judge(res.Paths)
	for _, p := range muted {
		m.log.Warn().Str("root", path).Str("path", p).
			Msg("ignoring a file the root's own command writes at every run (it would loop); to make it permanent: wakewheel watch " + path + " --skip /" + p)
	}
	head := res.Head
	added, depth, err := m.capture(r, path, paths, head, isGit, now, res.Partial, track.Memory())
	if err != nil {
		m.noteError(r, now, err)
		return scheduler.RetryLater(fmt.Errorf("capturing the changed set of %s: %w", path, err))
	}
	track.Captured()
	var muts []deadlines.Mutation
	if depth > 0 || back {
		muts = append(muts, pushNow(KindDrain, path))
	}
	if evicted && added > 0 {
		// Used again: re-arm, and look once more for what changed between
		// this scan and the new watches.
		m.mu.Lock()
		r.rearm = true
		m.mu.Unlock()
		m.ensureWatch(ctx, r)
		muts = append(muts, deadlines.Mutation{Op: deadlines.OpPush, Key: Key(KindDetect, path), Kind: KindDetect, At: now.Add(m.windows(r).BurstSilence)})
	}
	m.apply(ctx, muts...)
	if added > 0 {
		m.log.Debug().Str("root", path).Int("added", added).Int("backlog", depth).Msg("changed set captured")
		m.detected(Detection{Root: path, Head: head, Paths: paths, Added: added, At: now, Ahead: res.Ahead})
	}
	return scheduler.Succeeded()
}

// Detection is a detection that captured new paths.
type Detection struct {
	Root  string
	Head  string   // the HEAD commit of a git root ("" for a plain directory)
	Paths []string // the changed set, root-relative
	Added int      // how many of them were new to the backlog
	At    time.Time
	Ahead bool // the set was computed during the burst's silence (ahead.go)
}

// detected tells Options.OnDetected, fail-open.
func (m *Manager) detected(d Detection) {
	if m.opts.OnDetected == nil {
		return
	}
	defer func() {
		if p := recover(); p != nil {
			m.log.Error().Interface("panic", p).Str("root", d.Root).Msg("detection hook panicked; detection kept")
		}
	}()
	m.opts.OnDetected(d)
}

// scanOf is what the tracker is told: the since ref of a git root; for a
// plain directory the dirty directories the watcher saw, or a full scan
// when events may be missing (polling, too many dirty directories).
func (m *Manager) scanOf(r *root) detectors.Scan {
	dirs, full := r.sig.takeDirty()
	m.mu.Lock()
	defer m.mu.Unlock()
	notify := r.w != nil && r.w.Mode() == detectors.ModeNotify
	mark := r.sig.seen.Load()
	r.sig.detected.Store(mark)
	if !notify {
		mark = 0 // events may be missing: nothing computed ahead is taken
	}
	return detectors.Scan{SinceRef: r.rec.SinceRef, Dirty: dirs, Full: full || !notify, Mark: mark}
}

// capture appends paths to the root's backlog and advances its since ref
// in one synced write, with the tracker's memory of the set: the ref never
// moves past changes that are not durably queued, and a restart knows
// what was captured. It returns how many paths were new and the backlog's
// depth.
func (m *Manager) capture(r *root, path string, paths []string, head string, isGit bool, now time.Time, scanErr error, memory []byte) (added, depth int, err error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if r.gone {
		return 0, 0, nil
	}
	add := r.q.plan(paths)
	early := 0
	if first := m.batchSize(r); len(add) > first && m.canStartBatchLocked(r) {
		// A large set: its first batch is written and handed to ingest
		// before the rest is written. The since ref moves only with the
		// rest: a crash in between detects the whole set again (the
		// backlog holds the first batch once; ingest may get it twice).
		if err := m.db.Write(true, r.q.records(add[:first])...); err != nil {
			return 0, r.q.Len(), err
		}
		r.q.commit(add[:first])
		ref := r.rec.SinceRef
		if isGit {
			ref = head
		}
		m.startBatchOfLocked(r, ref, len(add)-first)
		add, early = add[first:], first
	}
	ops := r.q.records(add)
	rec := r.rec
	if isGit {
		rec.SinceRef = head
	}
	rec.LastDetection = now
	rec.LastError = ""
	if scanErr != nil {
		rec.LastError = scanErr.Error()
		r.st.lastErrorAt = now
	}
	if len(ops) > 0 || rec.SinceRef != r.rec.SinceRef || rec.LastError != r.rec.LastError {
		ops = append(ops, store.PutOp(nsRoots, path, encodeRecord(rec)))
		if memory != nil {
			ops = append(ops, store.PutOp(nsMemory, path, memory))
		}
		if err := m.db.Write(true, ops...); err != nil {
			return early, r.q.Len(), err
		}
	}
	r.q.commit(add)
	r.rec = rec
	r.isGit = isGit
	r.st.detections++
	r.st.lastChanged = early + len(add)
	return early + len(add), r.q.Len(), nil
}

func (m *Manager) noteError(r *root, now time.Time, err error) {
	m.mu.Lock()
	r.rec.LastError = err.Error()
	r.st.lastErrorAt = now
	m.mu.Unlock()
}
