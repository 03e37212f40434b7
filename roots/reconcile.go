package roots

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/wakewheel/wakewheel/scheduler"
	"github.com/wakewheel/wakewheel/store"
)

// reconcileHandler runs the root's reconcile after its quiet window. A
// drain that ingested files extends reconcile/<root> (quiet window, with
// its cap). At a firing without a result to consume:
//
//   - the root is busy (an ingest batch runs): wait for the run's end;
//   - a live lease covers the root: yield until the lease would expire
//     (the lease is advisory; the automatic action cedes);
//   - the root is marked candidate: skip (done);
//   - otherwise start the reconcile with a fresh store version (outcome
//     yield: in progress).
//
// Consuming a result: success is done; a conflict (exit 75, ErrConflict)
// the first time returns conflict, which the engine retries at once — that
// firing starts the one retry with a new version; a conflict on the retry
// is a failure with the alert auto_reconcile_conflict; any other failure
// is the alert reconcile_failed. Never a loop: the retry is spent per
// conflict episode, on the root.
func (m *Manager) reconcileHandler(ctx context.Context, f scheduler.Firing) scheduler.Outcome {
	return m.runHandler(KindReconcile, f,
		func(r *root, path string, res *result) scheduler.Outcome { return m.reconciled(r, path, f.Now, res) },
		func(r *root, path string) scheduler.Outcome { return m.startReconcileLocked(r, path, f.Now) })
}

// reconciled consumes a finished reconcile's result; m.mu is held.
func (m *Manager) reconciled(r *root, path string, now time.Time, res *result) scheduler.Outcome {
	r.st.lastReconcile = now
	switch {
	case res.err == nil:
		r.conflictRetried = false
		r.st.lastReconcileResult = "done"
		return scheduler.Succeeded()
	case res.conflict && !r.conflictRetried:
		r.conflictRetried = true
		r.st.lastReconcileResult = "conflict; retrying once with a fresh store version"
		return scheduler.Conflicted(res.err, AlertReconcileConflict)
	case res.conflict:
		r.conflictRetried = false
		r.st.lastReconcileResult = "conflict again on the retry: alerted"
		return scheduler.Outcome{Result: scheduler.Failure, Alert: AlertReconcileConflict,
			Err: fmt.Errorf("reconcile of %s conflicted again on its one retry: %w", path, res.err)}
	default:
		r.conflictRetried = false
		r.st.lastReconcileResult = "failed: " + res.err.Error()
		return scheduler.Outcome{Result: scheduler.Failure, Alert: AlertReconcileFailed,
			Err: fmt.Errorf("reconcile of %s: %w", path, res.err)}
	}
}

// startReconcileLocked starts r's reconcile unless it is skipped or
// yields to a lease; m.mu is held.
func (m *Manager) startReconcileLocked(r *root, path string, now time.Time) scheduler.Outcome {
	if !r.rec.Armed || !m.hasReconcile(r) {
		return scheduler.Succeeded()
	}
	if r.dirMissingLocked() {
		r.st.lastReconcile = now
		r.st.lastReconcileResult = "skipped: the root's directory is not there"
		return scheduler.Succeeded()
	}
	if r.rec.Candidate {
		r.st.lastReconcile = now
		r.st.lastReconcileResult = "skipped: the root is a candidate"
		return scheduler.Succeeded()
	}
	if name, left := m.liveLeaseLocked(path, now); left > 0 {
		r.st.lastReconcile = now
		r.st.lastReconcileResult = fmt.Sprintf("yielded to the lease %q for %s", name, left)
		return scheduler.YieldFor(left)
	}
	rec := r.rec
	rec.StoreVersion++
	if err := m.db.Write(true, store.PutOp(nsRoots, path, encodeRecord(rec))); err != nil {
		return scheduler.RetryLater(fmt.Errorf("recording the store version of %s: %w", path, err))
	}
	r.rec = rec
	run := ReconcileRun{Root: path, StoreVersion: rec.StoreVersion, SinceRef: rec.SinceRef}
	fn, line := m.funcs[path].Reconcile, rec.Reconcile
	m.startLocked(r, &job{kind: KindReconcile}, func(ctx context.Context) result {
		if fn != nil {
			err := fn(ctx, run)
			return result{err: err, conflict: errors.Is(err, ErrConflict)}
		}
		code, err := m.command(ctx, path, line, nil, reconcileEnv(run))
		if code == exitTempFail {
			return result{err: fmt.Errorf("%w (exit %d): %w", ErrConflict, code, err), conflict: true}
		}
		return result{err: err}
	})
	return scheduler.YieldFor(m.watchdog())
}
