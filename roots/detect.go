package roots

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/wakewheel/wakewheel/detectors"
	"github.com/wakewheel/wakewheel/internal/gitenv"
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
	evicted := m.ensureWatch(ctx, r)

	top, isGit := gitTop(path)
	r.sig.plain.Store(!isGit)
	if isGit && detectors.IndexLocked(top) {
		if r.lockSince.IsZero() {
			r.lockSince = now
			m.mu.Lock()
			r.st.lockWaits++
			m.mu.Unlock()
		}
		if waited := now.Sub(r.lockSince); waited < m.opts.IndexLockWait {
			// A git command is changing the index (a checkout): detect once
			// it is done. Its lock going away is an event that extends the
			// burst; the yield bounds the wait for a polled root.
			return scheduler.YieldFor(min(m.windows(r).BurstSilence, m.opts.IndexLockWait-waited))
		}
		m.log.Warn().Str("root", path).Dur("waited", now.Sub(r.lockSince)).Msg(".git/index.lock outlived detect.index_lock_wait; taken as stale, detecting anyway")
	} else {
		r.lockSince = time.Time{}
	}

	var paths []string
	var head string
	var next map[string]fileStat
	var scanErr error
	if isGit {
		paths, head, next, scanErr = m.gitChanged(ctx, r, path)
	} else {
		paths, scanErr = m.dirChanged(r, path)
	}
	if scanErr != nil && paths == nil {
		m.noteError(r, now, scanErr)
		return scheduler.RetryLater(fmt.Errorf("detection of %s: %w", path, scanErr))
	}
	added, depth, err := m.capture(r, path, paths, head, isGit, now, scanErr)
	if err != nil {
		m.noteError(r, now, err)
		return scheduler.RetryLater(fmt.Errorf("capturing the changed set of %s: %w", path, err))
	}
	if isGit {
		r.captured = next
	}
	var muts []scheduler.Mutation
	if depth > 0 {
		muts = append(muts, pushNow(KindDrain, path))
	}
	if evicted && added > 0 {
		// Used again: re-arm, and look once more for what changed between
		// this scan and the new watches.
		m.mu.Lock()
		r.rearm = true
		m.mu.Unlock()
		m.ensureWatch(ctx, r)
		muts = append(muts, scheduler.Mutation{Op: scheduler.OpPush, Key: Key(KindDetect, path), Kind: KindDetect, At: now.Add(m.windows(r).BurstSilence)})
	}
	m.apply(ctx, muts...)
	if added > 0 {
		m.log.Debug().Str("root", path).Int("added", added).Int("backlog", depth).Msg("changed set captured")
		m.detected(Detection{Root: path, Head: head, Paths: paths, Added: added, At: now})
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

// gitChanged is the changed set of a git root since its since ref, without
// the paths that are exactly as they were when the previous changed set was
// captured (a dirty file listed by every status until it is committed is
// captured once, not at every burst), plus the paths of that previous set
// that changed back (a dirty file reverted to HEAD leaves the status: its
// content changed nonetheless). It returns the set, the HEAD it belongs to,
// and the state to remember once it is captured.
func (m *Manager) gitChanged(ctx context.Context, r *root, path string) ([]string, string, map[string]fileStat, error) {
	m.mu.Lock()
	since, skip := r.rec.SinceRef, r.skip
	m.mu.Unlock()
	cs, err := detectors.GitChanged(ctx, path, since, skip)
	if errors.Is(err, detectors.ErrUnknownRef) {
		// The since ref is gone (a rebase, a gc): take every tracked file
		// once, and the new HEAD as the ref.
		m.log.Warn().Str("root", path).Str("since_ref", since).Msg("since ref no longer exists; inventorying every tracked file")
		cs, err = detectors.GitChanged(ctx, path, "", skip)
		if err == nil {
			var tracked []string
			tracked, err = lsFiles(ctx, path, skip)
			cs.Paths = append(cs.Paths, tracked...)
			slices.Sort(cs.Paths)
			cs.Paths = slices.Compact(cs.Paths)
		}
	}
	if err != nil {
		return nil, "", nil, err
	}
	next := make(map[string]fileStat, len(cs.Paths))
	out := make([]string, 0, len(cs.Paths))
	for _, p := range cs.Paths {
		st := lstatRel(path, p)
		next[p] = st
		if old, ok := r.captured[p]; ok && old == st {
			continue
		}
		out = append(out, p)
	}
	for p, old := range r.captured {
		if _, still := next[p]; !still && lstatRel(path, p) != old {
			out = append(out, p)
		}
	}
	return out, cs.Head, next, nil
}

// dirChanged is the changed set of a plain directory: the dirty
// directories rescanned when the watcher saw every event, the whole tree
// otherwise (the first detection, polling, too many dirty directories).
func (m *Manager) dirChanged(r *root, path string) ([]string, error) {
	dirs, full := r.sig.takeDirty()
	m.mu.Lock()
	notify := r.w != nil && r.w.Mode() == detectors.ModeNotify
	skip := r.skip
	m.mu.Unlock()
	if r.stat == nil {
		r.stat = detectors.NewStatCache(path, skip)
		full = true
	}
	var ch detectors.FileChanges
	var err error
	switch {
	case full || !notify:
		ch, err = r.stat.Scan()
	case len(dirs) > 0:
		ch, err = r.stat.ScanDirs(dirs)
	}
	return ch.Paths(), err
}

// capture appends paths to the root's backlog and advances its since ref
// in one synced write: the ref never moves past changes that are not
// durably queued. It returns how many paths were new and the backlog's
// depth.
func (m *Manager) capture(r *root, path string, paths []string, head string, isGit bool, now time.Time, scanErr error) (added, depth int, err error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if r.gone {
		return 0, 0, nil
	}
	ops, add := r.q.plan(paths)
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
		if err := m.db.Write(true, ops...); err != nil {
			return 0, r.q.Len(), err
		}
	}
	r.q.commit(add)
	r.rec = rec
	r.isGit = isGit
	r.st.detections++
	r.st.lastChanged = len(add)
	return len(add), r.q.Len(), nil
}

func (m *Manager) noteError(r *root, now time.Time, err error) {
	m.mu.Lock()
	r.rec.LastError = err.Error()
	r.st.lastErrorAt = now
	m.mu.Unlock()
}

// gitTop finds the work tree that holds dir: the nearest directory, dir
// or a parent, with a .git entry.
func gitTop(dir string) (string, bool) {
	for d := dir; ; {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return d, true
		}
		parent := filepath.Dir(d)
		if parent == d {
			return "", false
		}
		d = parent
	}
}

// lsFiles lists the tracked files under dir, root-relative, skip applied.
func lsFiles(ctx context.Context, dir string, skip detectors.SkipPolicy) ([]string, error) {
	cmd := exec.CommandContext(ctx, "git", "--no-optional-locks", "-C", dir, "-c", "core.quotePath=false", "ls-files", "-z")
	cmd.Env = gitenv.Env()
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("git ls-files in %s: %w: %s", dir, err, strings.TrimSpace(errb.String()))
	}
	var paths []string
	for _, p := range bytes.Split(out.Bytes(), []byte{0}) {
		if s := string(p); s != "" && !skip.Skips(s, false) && !detectors.IsGitControl(s) {
			paths = append(paths, s)
		}
	}
	return paths, nil
}
