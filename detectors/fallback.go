package detectors

// Mode says whether a watcher's events can be trusted.
type Mode string

// The modes of a Watcher. Only notify delivers events; every other mode is
// final for that Watcher (a new Watch call re-arms the root).
const (
	ModeNotify  Mode = "notify"  // watching; every change is reported
	ModePolling Mode = "polling" // events are not (or no longer) complete: poll
	ModeEvicted Mode = "evicted" // watches taken back by the Budget: re-arm on next use
	ModeClosed  Mode = "closed"  // Close was called
)

const (
	stateNotify int32 = iota
	statePolling
	stateEvicted
	stateClosed
)

var modes = [...]Mode{stateNotify: ModeNotify, statePolling: ModePolling, stateEvicted: ModeEvicted, stateClosed: ModeClosed}

func stateOf(m Mode) int32 {
	for i, x := range modes {
		if x == m {
			return int32(i)
		}
	}
	panic("detectors: unknown mode " + string(m))
}

// Reasons a watcher left notify mode (WatchStatus.Reason, OnFallback).
// Each means the root's changes must now be found by polling: the git
// changed set for git roots, a StatCache scan for plain directories.
const (
	// The kernel queue overflowed: events were dropped.
	ReasonOverflow = "overflow"
	// inotify_add_watch failed with ENOSPC (fs.inotify.max_user_watches).
	ReasonWatchLimit = "watch limit"
	// The Budget had no room, even after evicting idle roots; or, with mode
	// evicted, this root's watches were taken for another root.
	ReasonBudget = "watch budget"
	// fsnotify's channels closed without Close being called.
	ReasonWatcherDied = "watcher died"
	// The root is on a filesystem that does not deliver events (NFS, SMB,
	// FUSE, ...): changes made by other hosts or processes are invisible.
	ReasonUnwatchable = "unwatchable filesystem"
	// No notify instance could be created (fs.inotify.max_user_instances).
	ReasonNoNotify = "notify unavailable"
	// The root directory itself was removed or renamed.
	ReasonRootGone = "root removed"
)

// leave moves the watcher out of notify mode, recording why. Only the first
// call wins; it reports whether this one did.
func (w *Watcher) leave(m Mode, reason, detail string) bool {
	if !w.state.CompareAndSwap(stateNotify, stateOf(m)) {
		return false
	}
	w.mu.Lock()
	w.reason, w.detail = reason, detail
	w.mu.Unlock()
	return true
}

// fallback switches to polling (or another final mode) for reason, drops
// every watch and logs it. OnFallback is called by the loop when it sees
// fsnotify's channels close.
func (w *Watcher) fallback(m Mode, reason, detail string) {
	if !w.leave(m, reason, detail) {
		return
	}
	w.release()
	w.log.Warn().Str("mode", string(m)).Str("reason", reason).Str("detail", detail).
		Uint64("overflows", w.overflows.Load()).Msg("watcher left notify mode; the root is polled")
}

// evict is the Budget taking this watcher's watches for another root. It
// runs on that other root's goroutine; the Budget has already forgotten w.
func (w *Watcher) evict(detail string) {
	if !w.leave(ModeEvicted, ReasonBudget, detail) {
		return
	}
	w.release()
	w.log.Info().Str("detail", detail).Msg("watcher evicted; re-armed on next use")
}

// release closes fsnotify (the kernel drops every watch at once) and gives
// the directories back to the Budget.
func (w *Watcher) release() {
	if w.fsw != nil {
		_ = w.fsw.Close()
	}
	if w.entry != nil {
		w.budget.drop(w.entry)
	}
	w.watched.Store(0)
}

// finish runs when fsnotify's channels have closed: a watcher nobody closed
// has died; then OnFallback is told why the root is no longer watched.
func (w *Watcher) finish() {
	if w.state.Load() == stateNotify {
		w.fallback(ModePolling, ReasonWatcherDied, "fsnotify closed its channels")
	}
	if s := w.state.Load(); s == statePolling || s == stateEvicted {
		w.mu.Lock()
		reason := w.reason
		w.mu.Unlock()
		if w.onFallback != nil {
			w.onFallback(reason)
		}
	}
}

// unwatchableFS reports the name of the root's filesystem type if it does
// not deliver change events.
func (w *Watcher) unwatchableFS() (string, bool) {
	if w.hooks != nil && w.hooks.fsType != nil {
		return w.hooks.fsType(w.root)
	}
	return unwatchableFS(w.root)
}
