package roots

import (
	"context"
	"errors"
	"fmt"

	"github.com/wakewheel/wakewheel/internal/supervise"
	"github.com/wakewheel/wakewheel/scheduler"
)

// drainHandler hands the next batch of the root's backlog to its ingest
// handler, on a supervised goroutine (run.go). A firing either consumes
// the previous batch's result or starts a batch:
//
//   - a result of success: the batch has left the backlog; the next batch
//     starts at once and the outcome is done (one firing per batch);
//   - a result of failure: the batch went back to the front of the
//     backlog; the outcome is retry, so the engine's bounded backoff
//     spaces the next runs and raises retries_exhausted when they are
//     spent. The paths stay queued; the next detection or restart drains
//     again;
//   - no result, the root busy: wait for the run's end;
//   - no result: start a batch (outcome yield: in progress).
func (m *Manager) drainHandler(ctx context.Context, f scheduler.Firing) scheduler.Outcome {
	return m.runHandler(KindDrain, f, m.drained, func(r *root, _ string) scheduler.Outcome {
		if m.startBatchLocked(r) {
			return scheduler.YieldFor(m.watchdog())
		}
		return scheduler.Succeeded()
	})
}

// drained consumes a finished batch's result; m.mu is held.
func (m *Manager) drained(r *root, path string, res *result) scheduler.Outcome {
	if errors.Is(res.err, supervise.ErrNoDir) {
		return scheduler.Succeeded() // the root went away: its detection takes over (recover.go)
	}
	if res.err != nil {
		return scheduler.RetryLater(fmt.Errorf("ingest of %s: %w (the batch stays in the backlog; once the command is fixed, `wakewheel roots retry %s` drains it at once)", path, res.err, path))
	}
	m.startBatchLocked(r)
	return scheduler.Succeeded()
}

// startBatchLocked starts the next ingest batch of an armed root with an
// ingest handler and a non-empty backlog, and reports whether it did.
// m.mu is held.
func (m *Manager) startBatchLocked(r *root) bool {
	return m.startBatchOfLocked(r, r.rec.SinceRef, 0)
}

// canStartBatchLocked reports whether r may start a batch now: armed,
// with an ingest handler, its directory there, no run going on and no
// finished batch whose result its drain firing has yet to take.
func (m *Manager) canStartBatchLocked(r *root) bool {
	return r.rec.Armed && !r.runs.busy() && r.runs.results[KindDrain] == nil && m.hasIngest(r) && !r.dirMissingLocked()
}

// startBatchOfLocked is startBatchLocked for a batch whose changes belong
// to sinceRef, with more paths about to join the backlog behind it (a
// capture that starts its first batch before writing the rest).
func (m *Manager) startBatchOfLocked(r *root, sinceRef string, more int) bool {
	if !r.rec.Armed || r.runs.busy() || !m.hasIngest(r) || r.dirMissingLocked() {
		return false
	}
	batch := r.q.take(m.batchSize(r))
	if len(batch) == 0 {
		return false
	}
	b := Batch{Root: r.rec.Path, Paths: make([]string, len(batch)), Backlog: r.q.Len() - len(batch) + more, SinceRef: sinceRef}
	for i, e := range batch {
		b.Paths[i] = e.path
	}
	fn, line := m.funcs[r.rec.Path].Ingest, r.rec.Ingest
	m.startLocked(r, &job{kind: KindDrain, batch: batch}, func(ctx context.Context) result {
		if fn != nil {
			return result{err: fn(ctx, b)}
		}
		_, err := m.command(ctx, b.Root, line, nulJoin(b.Paths), ingestEnv(b))
		return result{err: err}
	})
	return true
}
