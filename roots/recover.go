package roots

import (
	"context"
	"fmt"
	"time"

	"github.com/wakewheel/wakewheel/detectors"
	"github.com/wakewheel/wakewheel/scheduler"
)

// A root whose directory goes away. Its watcher falls back (root
// removed), which pushes a detection; the detection finds the directory
// missing and, rather than scanning nothing or running a command in a
// directory that is not there:
//
//   - looks beside it for the same directory under another name (the
//     inode it had): a rename is said plainly — in the status, the log
//     and the alert root_renamed, with the two commands that move the
//     root — and the root's commands stop (no retries spent on them);
//   - otherwise says "root removed" (status, log, the alert root_polling)
//     and keeps looking for it: the
//     detection yields, PollInterval at first and less often the longer
//     the root stays away (at most lookoutMax);
//   - when the directory is back (recreated, or renamed back), the
//     watcher is re-armed, the tree scanned and the backlog drained.
//
// Drains and reconciles of a missing root do not run; the backlog keeps
// its paths.

// AlertRootRenamed is raised when a root's directory turned up under
// another name.
const AlertRootRenamed = "root_renamed"

// lookoutMax bounds the wait between two looks for a missing root.
const lookoutMax = time.Minute

// missing is a root's missing-directory state; guarded by Manager.mu.
type missing struct {
	since     time.Time // zero: the directory is there
	renamedTo string
}

// rootMissing is the detection of a root whose directory is not there.
func (m *Manager) rootMissing(ctx context.Context, r *root, path string, now time.Time) scheduler.Outcome {
	m.mu.Lock()
	first := r.gonedir.since.IsZero()
	if first {
		r.gonedir.since = now
		r.gonedir.renamedTo = detectors.FindRenamed(path, r.ino)
	}
	since, to := r.gonedir.since, r.gonedir.renamedTo
	m.mu.Unlock()
	if first {
		r.closeWatcher(m)
		if to != "" {
			msg := fmt.Sprintf("%s was renamed to %s; its commands no longer run. To follow it: wakewheel watch %s --arm (with its --ingest/--reconcile), then wakewheel unwatch %s", path, to, to, path)
			m.log.Warn().Str("root", path).Str("renamed_to", to).Msg(msg)
			m.alert(ctx, AlertRootRenamed, Key(KindDetect, path), msg)
		} else {
			msg := fmt.Sprintf("%s: polling (%s): the root directory was removed; its commands wait, and it is re-armed when it comes back", path, detectors.ReasonRootGone)
			m.log.Warn().Str("root", path).Msg(msg)
			m.alert(ctx, AlertRootPolling, Key(KindDetect, path), msg)
		}
	}
	return scheduler.YieldFor(min(max(now.Sub(since), m.opts.PollInterval), lookoutMax))
}

// rootBack clears the missing state of a root whose directory is there
// again; it reports whether it was missing.
func (m *Manager) rootBack(r *root, path string) bool {
	m.mu.Lock()
	was := !r.gonedir.since.IsZero()
	r.gonedir = missing{}
	m.mu.Unlock()
	if was {
		m.log.Info().Str("root", path).Msg("root directory is back; watching it again")
		r.sig.markFull()
	}
	return was
}

// dirMissingLocked reports whether r's directory is known to be missing;
// m.mu is held.
func (r *root) dirMissingLocked() bool { return !r.gonedir.since.IsZero() }

// missingMode is the status of a missing root.
func (r *root) missingMode() (mode, reason, detail string) {
	if r.gonedir.renamedTo != "" {
		return ModePolling, "root renamed", fmt.Sprintf("renamed to %s: watch that path to follow it, and unwatch this one; its commands do not run", r.gonedir.renamedTo)
	}
	return ModePolling, detectors.ReasonRootGone, "the directory is not there; it is re-armed when it comes back, and its backlog waits"
}
