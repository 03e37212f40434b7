package roots

import (
	"time"

	"github.com/wakewheel/wakewheel/scheduler"
)

// runs is one root's supervised command runs, in the spirit of an exec
// queue: at most one run at a time; a handler that finds the root busy
// waits, and its key is pushed when the run ends; a finished run's result
// is kept until the next firing of the run's own key takes it, so the
// engine's outcome machinery (retry, conflict, alert) applies to it. The
// zero value is idle. Guarded by Manager.mu, like the rest of the root;
// the goroutine that runs the command is Manager.startLocked's.
type runs struct {
	cur     *job               // the running command, if any
	results map[string]*result // finished runs not yet taken, by kind
	waiters map[string]bool    // kinds whose key is pushed when cur ends
}

// job is a running command.
type job struct {
	kind    string // KindDrain or KindReconcile
	batch   []entry
	started time.Time
}

// result is a finished run not yet consumed by its handler.
type result struct {
	err      error
	conflict bool
	took     time.Duration
}

// busy reports whether a run is going on.
func (q *runs) busy() bool { return q.cur != nil }

// take returns the finished result of kind, once.
func (q *runs) take(kind string) *result {
	res := q.results[kind]
	delete(q.results, kind)
	return res
}

// wait marks kind's key to be pushed when the running command ends.
func (q *runs) wait(kind string) {
	if q.waiters == nil {
		q.waiters = make(map[string]bool)
	}
	q.waiters[kind] = true
}

// begin records j as the running command.
func (q *runs) begin(j *job) { q.cur = j }

// end records the end of j: the result is kept for j's kind unless keep
// is false (the root is gone). It returns the kinds whose keys to push:
// j's own first (to consume the result), then every waiter.
func (q *runs) end(j *job, res *result, keep bool) []string {
	q.cur = nil
	kinds := []string{j.kind}
	for k := range q.waiters {
		if k != j.kind {
			kinds = append(kinds, k)
		}
	}
	clear(q.waiters)
	if keep {
		if q.results == nil {
			q.results = make(map[string]*result)
		}
		q.results[j.kind] = res
	}
	return kinds
}

// runHandler is the firing of a supervised run's key (drain, reconcile):
// it finds the root (gone: done) and, with m.mu held, hands a finished
// run's result to took; with none, waits for a busy root's run to end
// (the key is pushed then), or calls start.
func (m *Manager) runHandler(kind string, f scheduler.Firing, took func(r *root, path string, res *result) scheduler.Outcome, start func(r *root, path string) scheduler.Outcome) scheduler.Outcome {
	path := rootOfKey(kind, f.Deadline.Key)
	m.mu.Lock()
	defer m.mu.Unlock()
	r := m.roots[path]
	if r == nil || r.gone {
		return scheduler.Succeeded()
	}
	if res := r.runs.take(kind); res != nil {
		return took(r, path, res)
	}
	if r.runs.busy() {
		r.runs.wait(kind)
		return scheduler.YieldFor(m.watchdog())
	}
	return start(r, path)
}
