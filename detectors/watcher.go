package detectors

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/fsnotify/fsnotify"
	"github.com/rs/zerolog"
)

// eventBuffer is the length of the channel between fsnotify's reader and
// the watcher's loop. It lets the reader keep draining the kernel queue
// while the loop lists a new directory.
const eventBuffer = 4096

// WatchOptions configures Watch. Only Root is required.
type WatchOptions struct {
	// Root is the directory to watch, recursively.
	Root string
	// Skip says which directories are never watched and which paths are
	// never reported. The zero value applies the defaults.
	Skip SkipPolicy
	// Budget, if set, caps the watched directories across roots (see
	// Budget). Nil: only the kernel limit applies.
	Budget *Budget
	// OnEvent is called with the root-relative, slash-separated path of every
	// event that is not skipped, including IndexLockPath appearing or going
	// and HeadPath changing. It runs on the watcher's goroutine and must be
	// fast (extend a deadline, no I/O): while it runs, events queue up in the
	// kernel, which drops them all when its queue overflows.
	OnEvent func(relPath string)
	// OnFallback is called once, from the watcher's goroutine, when a
	// running watcher leaves notify mode (polling or evicted) with the
	// Reason* code; Status().Detail says more. It is not called for a
	// watcher that Watch returns already in polling mode, nor after Close.
	OnFallback func(reason string)
	// Logger receives fallbacks and unexpected errors, never per-event logs.
	Logger zerolog.Logger

	hooks *watchHooks // tests only
}

// WatchStatus is a watcher's honest state.
type WatchStatus struct {
	Root        string
	Mode        Mode   // notify, polling, evicted or closed
	Reason      string // a Reason* code when Mode is polling or evicted
	Detail      string // what happened, for a human
	WatchedDirs int    // directories watched now
	Overflows   uint64 // kernel queue overflows seen
	Events      uint64 // events reported to OnEvent
	LastError   string // last unexpected error that did not stop the watcher
}

// Watcher watches one root recursively with fsnotify. It never runs work:
// it reports events to OnEvent and says in Status whether its events can be
// trusted (mode notify) or the root must be polled.
//
// Every non-skipped directory has a watch; skipped ones never do. A new
// directory is watched first and listed second, and everything found in it
// is reported, so files created before its watch existed are not lost. A
// removed or renamed directory loses its watches and its descendants'.
type Watcher struct {
	root, prefix string
	skip         SkipPolicy
	onEvent      func(string)
	onFallback   func(string)
	log          zerolog.Logger
	hooks        *watchHooks
	budget       *Budget
	entry        *budgetEntry
	fsw          *fsnotify.Watcher

	state     atomic.Int32 // a Mode index
	events    atomic.Uint64
	overflows atomic.Uint64
	watched   atomic.Int64

	mu                      sync.Mutex // guards the strings below and tree writes
	reason, detail, lastErr string
	tree                    dirTree // written by the owning goroutine only

	done chan struct{} // closed when the loop has exited (or never ran)
}

// Watch starts watching opts.Root. It returns an error only for bad options
// (a root that is not a directory) or ErrAlreadyWatched. A root that cannot
// be watched (an unwatchable filesystem, no inotify instance left, the
// kernel watch limit, the Budget) gives a Watcher already in polling mode,
// with its reason in Status; the caller then polls the root (git or
// StatCache), and may call Watch again later.
func Watch(opts WatchOptions) (*Watcher, error) {
	root, err := rootKey(opts.Root)
	if err != nil {
		return nil, fmt.Errorf("detectors: watch %q: %w", opts.Root, err)
	}
	fi, err := os.Stat(root)
	if err != nil {
		return nil, fmt.Errorf("detectors: watch: %w", err)
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("detectors: watch %s: not a directory", root)
	}
	w := &Watcher{
		root:       root,
		prefix:     root,
		skip:       opts.Skip,
		onEvent:    opts.OnEvent,
		onFallback: opts.OnFallback,
		log:        opts.Logger.With().Str("root", root).Logger(),
		hooks:      opts.hooks,
		budget:     opts.Budget,
		done:       make(chan struct{}),
	}
	if !strings.HasSuffix(w.prefix, string(filepath.Separator)) {
		w.prefix += string(filepath.Separator)
	}
	if w.onEvent == nil {
		w.onEvent = func(string) {}
	}
	w.tree.init()

	if fsName, ok := w.unwatchableFS(); ok {
		w.fallback(ModePolling, ReasonUnwatchable, fsName+" does not deliver change events")
		return w.started(false), nil
	}
	w.fsw, err = fsnotify.NewBufferedWatcher(eventBuffer)
	if err != nil {
		w.fallback(ModePolling, ReasonNoNotify, err.Error())
		return w.started(false), nil
	}
	if w.budget != nil {
		n := countDirs(root, w.skip)
		ok, why, err := w.budget.register(w, n) // sets w.entry
		if err != nil {
			_ = w.fsw.Close()
			return nil, err
		}
		if !ok {
			w.fallback(ModePolling, ReasonBudget, why)
			return w.started(false), nil
		}
	}
	w.addTree("", false)
	if w.Mode() == ModeNotify && !w.tree.has("") {
		w.mu.Lock()
		why := w.lastErr
		w.mu.Unlock()
		w.fallback(ModePolling, ReasonUnwatchable, "the root itself could not be watched: "+why)
	}
	if w.Mode() != ModeNotify {
		return w.started(false), nil
	}
	if w.entry != nil {
		w.budget.settle(w.entry)
	}
	return w.started(true), nil
}

func (w *Watcher) started(run bool) *Watcher {
	if run {
		go w.loop()
	} else {
		close(w.done)
	}
	return w
}

// Root is the watched root: an absolute, cleaned path.
func (w *Watcher) Root() string { return w.root }

// Mode is the watcher's current mode.
func (w *Watcher) Mode() Mode { return modes[w.state.Load()] }

// Status reports the watcher's mode and counters.
func (w *Watcher) Status() WatchStatus {
	w.mu.Lock()
	reason, detail, lastErr := w.reason, w.detail, w.lastErr
	w.mu.Unlock()
	mode, watched := w.Mode(), 0
	if mode == ModeNotify {
		watched = int(w.watched.Load())
	}
	return WatchStatus{
		Root:        w.root,
		Mode:        mode,
		Reason:      reason,
		Detail:      detail,
		WatchedDirs: watched, // a watcher out of notify mode holds none (or is dropping them)
		Overflows:   w.overflows.Load(),
		Events:      w.events.Load(),
		LastError:   lastErr,
	}
}

// Close stops watching and releases the watches and their budget. After it
// returns, OnEvent and OnFallback are not called again. It must not be
// called from OnEvent or OnFallback (it waits for them to return).
func (w *Watcher) Close() error {
	if w.leave(ModeClosed, "", "") {
		w.release()
	}
	<-w.done
	return nil
}

// loop is the watcher's goroutine: events and errors in one select, so an
// overflow is seen as soon as fsnotify reports it.
func (w *Watcher) loop() {
	defer close(w.done)
	var inject chan error
	if w.hooks != nil {
		inject = w.hooks.inject
	}
	events, errs := w.fsw.Events, w.fsw.Errors
	for events != nil || errs != nil {
		select {
		case ev, ok := <-events:
			if !ok {
				events = nil
				continue
			}
			w.handle(ev)
		case err, ok := <-errs:
			if !ok {
				errs = nil
				continue
			}
			w.handleError(err)
		case err := <-inject:
			w.handleError(err)
		}
	}
	w.finish()
}

// handle turns one fsnotify event into at most a few reports. Its only
// system calls are an lstat for a created path and, for a created directory,
// the watch and the listing.
func (w *Watcher) handle(ev fsnotify.Event) {
	if w.state.Load() != stateNotify {
		return // left notify mode: drain what fsnotify still delivers
	}
	rel, ok := w.rel(ev.Name)
	if !ok {
		return
	}
	if rel == "" {
		if ev.Has(fsnotify.Remove) || ev.Has(fsnotify.Rename) {
			w.fallback(ModePolling, ReasonRootGone, "the root directory was removed or renamed")
		}
		return
	}
	if !w.tree.has(parentOf(rel)) && !w.tree.has(rel) {
		// Read by fsnotify from a watch this loop has dropped since (a
		// renamed directory): the name is stale. The new name is listed.
		return
	}
	switch {
	case ev.Has(fsnotify.Create):
		w.created(rel, ev.Name)
	case ev.Has(fsnotify.Remove), ev.Has(fsnotify.Rename):
		isDir := w.tree.has(rel)
		if isDir {
			w.dropTree(rel)
		}
		if !w.skip.Skips(rel, isDir) {
			w.report(rel)
		}
	default:
		if !w.skip.Skips(rel, false) {
			w.report(rel)
		}
	}
}

// created handles a path that appeared (created, or moved in).
func (w *Watcher) created(rel, abs string) {
	fi, err := os.Lstat(abs)
	if err != nil || !fi.IsDir() {
		// A file, or a path already gone again: either way it changed.
		if !w.skip.Skips(rel, false) {
			w.report(rel)
		}
		return
	}
	if w.skip.Skips(rel, true) {
		return
	}
	w.report(rel)
	w.addTree(rel, true)
}

func (w *Watcher) report(rel string) {
	w.events.Add(1)
	if w.entry != nil {
		w.budget.use(w.entry)
	}
	w.onEvent(rel)
}

func (w *Watcher) handleError(err error) {
	if errors.Is(err, fsnotify.ErrEventOverflow) {
		w.overflows.Add(1)
		w.fallback(ModePolling, ReasonOverflow, "the kernel event queue overflowed"+queueLimitHint()+"; events were lost")
		return
	}
	w.noteError(err)
}

func (w *Watcher) noteError(err error) {
	w.mu.Lock()
	w.lastErr = err.Error()
	w.mu.Unlock()
	w.log.Warn().Err(err).Msg("watcher error")
}

// rel maps an event's absolute name to its root-relative, slash-separated
// path ("" for the root itself).
func (w *Watcher) rel(name string) (string, bool) {
	if name == w.root {
		return "", true
	}
	rel, ok := strings.CutPrefix(name, w.prefix)
	if !ok {
		return "", false
	}
	return filepath.ToSlash(rel), true
}

// abs maps a root-relative path to the path given to fsnotify.
func (w *Watcher) abs(rel string) string {
	if rel == "" {
		return w.root
	}
	return w.prefix + filepath.FromSlash(rel)
}

func (w *Watcher) addWatch(abs string) error {
	if w.hooks != nil && w.hooks.add != nil {
		if err := w.hooks.add(abs); err != nil {
			return err
		}
	}
	return w.fsw.Add(abs)
}

// watchHooks let tests inject failures the kernel will not produce on
// demand (ENOSPC, an unwatchable filesystem) and errors on the loop.
type watchHooks struct {
	add    func(abs string) error
	fsType func(root string) (string, bool)
	inject chan error
}
