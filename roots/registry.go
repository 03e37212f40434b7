package roots

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/wakewheel/wakewheel/deadlines"
	"github.com/wakewheel/wakewheel/detectors"
	"github.com/wakewheel/wakewheel/internal/supervise"
	"github.com/wakewheel/wakewheel/store"
)

// Spec registers or updates a root. Nil fields keep what the root has (a
// new root starts without commands, skip entries or candidate flag); an
// empty command string removes the command.
type Spec struct {
	Path      string
	Ingest    *string
	Reconcile *string
	Skip      []string // nil: keep; empty non-nil: none beside the defaults
	Candidate *bool
	// Windows, when set, replaces the root's own windows (kept in memory:
	// the config file declares them again at every start).
	Windows *Windows
	// Arm also arms the root (a new root is disarmed otherwise: the
	// factory default).
	Arm bool
	// ByAgent: the request comes from an agent (the MCP adapter). It may
	// register a root and change its skip entries and arming, never its
	// commands; a root it registers is marked so (Record.ByAgent). A
	// request that is not an agent's adopts the root for the operator.
	ByAgent bool

	onlyExisting bool // Arm: the root must be registered
}

// Watch registers the root spec.Path, or updates it, and returns its
// status. The path must be an existing directory. The record is synced
// before Watch returns.
func (m *Manager) Watch(ctx context.Context, spec Spec) (Status, error) {
	path, err := CleanPath(spec.Path)
	if err != nil {
		return Status{}, err
	}
	fi, err := os.Stat(path)
	if err != nil {
		return Status{}, fmt.Errorf("%w: %w", ErrBadPath, err)
	}
	if !fi.IsDir() {
		return Status{}, fmt.Errorf("%w: %s is not a directory", ErrBadPath, path)
	}
	if spec.ByAgent && (spec.Ingest != nil || spec.Reconcile != nil) {
		return Status{}, fmt.Errorf("%w: %s: an agent cannot set a root's commands; the operator sets them with wakewheel watch --ingest/--reconcile or the config file", ErrOperators, path)
	}
	if err := checkCommands(spec, path); err != nil {
		return Status{}, err
	}
	var skip detectors.SkipPolicy
	if spec.Skip != nil {
		if skip, err = m.policy(path, spec.Skip); err != nil {
			return Status{}, fmt.Errorf("%w: %w", ErrBadSkip, err)
		}
	}
	m.mu.Lock()
	r := m.roots[path]
	created := r == nil
	if created && spec.onlyExisting {
		m.mu.Unlock()
		return Status{}, fmt.Errorf("%w: %s (register it with watch first)", ErrUnknownRoot, path)
	}
	if created {
		if err := m.overlapLocked(path); err != nil {
			m.mu.Unlock()
			return Status{}, err
		}
	}
	var rec Record
	if created {
		rec = Record{ID: m.nextID, Path: path, Created: m.opts.Clock.Now(), ByAgent: spec.ByAgent}
	} else {
		rec = r.rec
		if !spec.ByAgent && !spec.onlyExisting {
			rec.ByAgent = false // the operator's watch adopts the root
		}
	}
	commandsChanged := false
	if spec.Ingest != nil {
		commandsChanged = commandsChanged || rec.Ingest != *spec.Ingest
		rec.Ingest = *spec.Ingest
	}
	if spec.Reconcile != nil {
		commandsChanged = commandsChanged || rec.Reconcile != *spec.Reconcile
		rec.Reconcile = *spec.Reconcile
	}
	if spec.Candidate != nil {
		rec.Candidate = *spec.Candidate
	}
	skipChanged := spec.Skip != nil && !slices.Equal(sortedCopy(spec.Skip), sortedCopy(rec.Skip))
	if skipChanged {
		rec.Skip = sortedCopy(spec.Skip)
	}
	arming := spec.Arm && !rec.Armed
	if spec.Arm {
		rec.Armed = true
	}
	if err := m.db.Write(true, store.PutOp(nsRoots, path, encodeRecord(rec))); err != nil {
		m.mu.Unlock()
		return Status{}, err
	}
	if created {
		m.nextID++
		r, _ = newRoot(rec, m.opts.OwnFiles, m.opts.Clock)
		r.q = newBacklog(rec.ID)
		m.roots[path] = r
	}
	r.rec = rec
	if spec.Windows != nil {
		w := *spec.Windows
		r.win.Store(&w)
	}
	if skipChanged {
		r.skip = skip
	}
	r.rearm = true
	m.mu.Unlock()
	if skipChanged && !created {
		r.closeWatcher(m) // restarted with the new policy at the next detection
		r.sig.markFull()
		m.mu.Lock()
		r.track = detectors.NewTracker(path, skip) // forgets what it captured
		m.mu.Unlock()
	}
	switch {
	case arming:
		m.log.Info().Str("root", path).Msg("root armed")
		m.apply(ctx, pushNow(KindDetect, path), pushNow(KindDrain, path))
	case commandsChanged && rec.Armed && !created:
		// A fixed command resumes a backlog whose retries were spent.
		m.log.Info().Str("root", path).Msg("root's commands changed; draining its backlog with them")
		m.apply(ctx, pushNow(KindDrain, path))
	}
	if created && path == "/" {
		m.log.Warn().Msg("watching / takes in every file of the machine; the daemon's own files are left out")
	}
	if created {
		m.log.Info().Str("root", path).Bool("armed", rec.Armed).Bool("ingest", rec.Ingest != "").
			Bool("reconcile", rec.Reconcile != "").Msg("root registered")
	}
	return m.statusOf(ctx, path)
}

// overlapLocked refuses a new root inside a registered one, or holding
// one: a file under both would be detected, queued and ingested twice,
// by two watchers with two since refs. m.mu is held.
func (m *Manager) overlapLocked(path string) error {
	for other := range m.roots {
		switch {
		case within(path, other):
			return fmt.Errorf("%w: %s is inside the root %s, which already covers it; skip what you do not want there (wakewheel watch %s --skip DIR) or unwatch %s first", ErrOverlap, path, other, other, other)
		case within(other, path):
			return fmt.Errorf("%w: %s holds the root %s; its files would be detected twice: unwatch %s first, or watch a directory beside it", ErrOverlap, path, other, other)
		}
	}
	return nil
}

// within reports whether path is strictly under dir.
func within(path, dir string) bool {
	if dir == "/" {
		return path != "/"
	}
	return strings.HasPrefix(path, dir+"/")
}

// checkCommands refuses a command whose program does not exist or is
// not executable, before anything is recorded: a relative program counts
// from the root, where the command runs (the CLI has made it absolute
// against the caller's directory already).
func checkCommands(spec Spec, root string) error {
	for _, c := range []struct {
		name string
		line *string
	}{{"ingest", spec.Ingest}, {"reconcile", spec.Reconcile}} {
		if c.line == nil || *c.line == "" {
			continue
		}
		if _, err := supervise.Resolve(*c.line, root); err != nil {
			return fmt.Errorf("%w: the %s command %q: %w", ErrBadCommand, c.name, *c.line, unprefixed(err))
		}
	}
	return nil
}

// unprefixed drops supervise's sentinel text: the message says it already.
func unprefixed(err error) error {
	if msg, ok := strings.CutPrefix(err.Error(), supervise.ErrBadCommand.Error()+": "); ok {
		return errors.New(msg)
	}
	return err
}

// Unwatch forgets the root: its watcher, backlog, record and deadlines. It
// reports whether the root was registered.
func (m *Manager) Unwatch(ctx context.Context, p string) (bool, error) {
	return m.unwatch(ctx, p, false)
}

// UnwatchByAgent is Unwatch for an agent (the MCP adapter): only a root an
// agent registered, and the operator did not adopt since, may go; the
// operator's roots — their commands, their backlog — are refused, saying
// so.
func (m *Manager) UnwatchByAgent(ctx context.Context, p string) (bool, error) {
	return m.unwatch(ctx, p, true)
}

func (m *Manager) unwatch(ctx context.Context, p string, byAgent bool) (bool, error) {
	path, r, err := m.lockRoot(p)
	if errors.Is(err, ErrUnknownRoot) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if byAgent && !r.rec.ByAgent {
		m.mu.Unlock()
		return false, fmt.Errorf("%w: %s was registered by the operator (wakewheel watch or the config file); an agent may only unwatch the roots it registered", ErrOperators, path)
	}
	ops := append(r.q.deleteAll(), store.DeleteOp(nsRoots, path), store.DeleteOp(nsMemory, path))
	if err := m.db.Write(true, ops...); err != nil {
		m.mu.Unlock()
		return false, err
	}
	r.gone = true
	delete(m.roots, path)
	m.mu.Unlock()
	r.closeWatcher(m)
	m.cancelDeadlines(ctx, path, rootKinds[:]...)
	m.log.Info().Str("root", path).Msg("root unwatched")
	return true, nil
}

// Arm arms the root (persisted, synced): it is watched and its detections,
// drains and reconciles run. The watcher starts at the detection Arm
// schedules now.
func (m *Manager) Arm(ctx context.Context, p string) (Status, error) {
	path, err := CleanPath(p)
	if err != nil {
		return Status{}, err
	}
	if m.lookup(path) == nil {
		return Status{}, fmt.Errorf("%w: %s (register it with watch first)", ErrUnknownRoot, path)
	}
	return m.Watch(ctx, Spec{Path: path, Arm: true, onlyExisting: true})
}

// Disarm disarms the root (persisted, synced): its watcher stops and no
// automatic action runs for it; its registration and backlog stay.
func (m *Manager) Disarm(ctx context.Context, p string) (Status, error) {
	path, r, err := m.lockRoot(p)
	if err != nil {
		return Status{}, err
	}
	if r.rec.Armed {
		rec := r.rec
		rec.Armed = false
		if err := m.db.Write(true, store.PutOp(nsRoots, path, encodeRecord(rec))); err != nil {
			m.mu.Unlock()
			return Status{}, err
		}
		r.rec = rec
		m.log.Info().Str("root", path).Msg("root disarmed")
	}
	m.mu.Unlock()
	r.closeWatcher(m)
	m.cancelDeadlines(ctx, path, KindBurst, KindDetect)
	return m.statusOf(ctx, path)
}

// SetHandlers makes the root at path (registered now or later) run Go
// functions instead of command lines. Handlers are not persisted: an
// embedding program sets them at every start.
func (m *Manager) SetHandlers(p string, h Handlers) error {
	path, err := CleanPath(p)
	if err != nil {
		return err
	}
	m.mu.Lock()
	m.funcs[path] = h
	m.mu.Unlock()
	return nil
}

func (m *Manager) cancelDeadlines(ctx context.Context, path string, kinds ...string) {
	muts := make([]deadlines.Mutation, len(kinds))
	for i, k := range kinds {
		muts[i] = deadlines.Mutation{Op: deadlines.OpCancel, Key: Key(k, path)}
	}
	m.apply(ctx, muts...)
}

// lockRoot resolves p (CleanPath) and returns its root with m.mu held.
// When p cannot name a root, or no root is registered there
// (ErrUnknownRoot), it returns the error and m.mu is not held.
func (m *Manager) lockRoot(p string) (string, *root, error) {
	path, err := CleanPath(p)
	if err != nil {
		return "", nil, err
	}
	m.mu.Lock()
	r := m.roots[path]
	if r == nil {
		m.mu.Unlock()
		return path, nil, fmt.Errorf("%w: %s", ErrUnknownRoot, path)
	}
	return path, r, nil
}
