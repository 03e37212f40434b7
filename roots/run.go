package roots

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/wakewheel/wakewheel/deadlines"
	"github.com/wakewheel/wakewheel/internal/gitenv"
	"github.com/wakewheel/wakewheel/internal/supervise"
	"github.com/wakewheel/wakewheel/store"
)

// Supervised runs. An ingest batch or a reconcile runs on a goroutine of
// its own, never on the engine's worker: the handler that starts it
// returns at once (outcome yield, with a watchdog delay), and the run's
// end is an event — its result is stored on the root and the handler's
// key is pushed due now, so the next firing of the same key consumes the
// result and returns the real outcome (done, retry, conflict, failure).
// One run at a time per root: a handler that finds its root busy waits
// for the run's end (it is pushed again then). Wakes, lease expiries and
// other roots never wait behind a slow command.

// exitTempFail is EX_TEMPFAIL of sysexits.h: a reconcile command's "my
// store moved under me" (an optimistic-concurrency conflict).
const exitTempFail = 75

// Batch is one ingest run: at most DrainBudget root-relative paths, in
// backlog order.
type Batch struct {
	Root     string
	Paths    []string
	Backlog  int    // paths left in the backlog after this batch
	SinceRef string // git: the HEAD the captured changes belong to
}

// ReconcileRun is one reconcile run.
type ReconcileRun struct {
	Root         string
	StoreVersion uint64 // fresh for every run, the conflict retry included
	SinceRef     string
}

// Handlers are Go functions an embedding program runs instead of command
// lines. Ingest gets each batch; an error keeps the batch in the backlog
// (retried with backoff, then alerted). Reconcile returns nil, an error
// wrapping ErrConflict (one retry with a fresh version, then the alert
// auto_reconcile_conflict), or another error (the alert reconcile_failed).
// Both run on the root's supervised goroutine with a deadline in ctx.
type Handlers struct {
	Ingest    func(ctx context.Context, b Batch) error
	Reconcile func(ctx context.Context, r ReconcileRun) error
}

// watchdog is the yield of a handler that started a run or waits for one:
// the run's end pushes the key earlier; this only bounds a lost push.
func (m *Manager) watchdog() time.Duration { return m.opts.CommandTimeout + 5*time.Second }

// startLocked starts j for r on its own goroutine; m.mu is held.
func (m *Manager) startLocked(r *root, j *job, run func(ctx context.Context) result) {
	j.started = m.opts.Clock.Now()
	r.runs.begin(j)
	r.self.begin()
	ctx, cancel := context.WithTimeout(m.ctx, m.opts.CommandTimeout)
	m.wg.Add(1)
	m.active.Add(1)
	go func() {
		defer m.wg.Done()
		defer m.active.Add(-1) // after finish: its pushes are applied
		defer cancel()
		res := safeRun(ctx, run)
		if errors.Is(ctx.Err(), context.DeadlineExceeded) && res.err != nil {
			res.err = fmt.Errorf("timed out after %s: %w", m.opts.CommandTimeout, res.err)
			res.conflict = false
		}
		res.took = m.opts.Clock.Now().Sub(j.started)
		m.finish(r, j, res)
	}()
}

func safeRun(ctx context.Context, run func(ctx context.Context) result) (res result) {
	defer func() {
		if p := recover(); p != nil {
			res = result{err: fmt.Errorf("handler panicked: %v", p)}
		}
	}()
	return run(ctx)
}

// finish records a run's end and pushes the keys that wait for it: the
// run's own (to consume the result) and any handler that found the root
// busy. A successful batch leaves the backlog here, and extends the
// root's reconcile window.
func (m *Manager) finish(r *root, j *job, res result) {
	r.self.end()
	if m.ctx.Err() != nil {
		return // closing: the batch stays in the backlog for the next start
	}
	m.mu.Lock()
	path := r.rec.Path
	var del []store.Op
	reconcile := false
	if j.kind == KindDrain {
		ops := r.q.done(res.err == nil)
		if res.err == nil {
			r.measure(len(j.batch), res.took)
			r.st.ingested += uint64(len(j.batch))
			r.st.batches++
			r.st.lastIngest = m.opts.Clock.Now()
			reconcile = m.hasReconcile(r)
		}
		del = ops
	}
	if res.err != nil {
		r.rec.LastError = fmt.Sprintf("%s: %v", actionName(j.kind), res.err)
		r.st.lastErrorAt = m.opts.Clock.Now()
	}
	kinds := r.runs.end(j, &res, !r.gone)
	m.mu.Unlock()
	if len(del) > 0 {
		// Unsynced: a power loss can only hand these paths to ingest again.
		if err := m.db.Write(false, del...); err != nil {
			m.log.Error().Err(err).Str("root", path).Msg("removing an ingested batch from the backlog failed; it will be ingested again")
		}
	}
	muts := make([]deadlines.Mutation, 0, len(kinds)+1)
	for _, k := range kinds {
		muts = append(muts, pushNow(k, path))
	}
	if reconcile {
		muts = append(muts, deadlines.Mutation{Op: deadlines.OpExtend, Key: Key(KindReconcile, path), Kind: KindReconcile,
			Window: m.windows(r).ReconcileQuiet, Cap: m.windows(r).ReconcileCap})
	}
	m.apply(m.ctx, muts...)
}

func actionName(kind string) string {
	if kind == KindDrain {
		return "ingest"
	}
	return kind
}

// hasReconcile reports whether r has a reconcile handler; m.mu is held.
func (m *Manager) hasReconcile(r *root) bool {
	return r.rec.Reconcile != "" || m.funcs[r.rec.Path].Reconcile != nil
}

// hasIngest reports whether r has an ingest handler; m.mu is held.
func (m *Manager) hasIngest(r *root) bool {
	return r.rec.Ingest != "" || m.funcs[r.rec.Path].Ingest != nil
}

// command runs an operator's command line with sh -c in the root's
// directory, stdin and extra environment given, supervised (package
// supervise: its process group dies with the run, at ctx's end at the
// latest). It returns the exit code (-1 if it did not exit) and an error
// carrying the tail of its output.
func (m *Manager) command(ctx context.Context, root, line string, stdin []byte, env []string) (int, error) {
	res := supervise.Run(ctx, supervise.Command{
		Line: line, Shell: m.opts.Shell, Dir: root,
		Env: append(gitenv.Env(), env...), Stdin: bytes.NewReader(stdin),
		OutputCap: maxCommandOutput,
	})
	if res.Err != nil && errors.Is(ctx.Err(), context.DeadlineExceeded) {
		// startLocked names the timeout; say only what was killed.
		if res.Output != "" {
			return res.ExitCode, fmt.Errorf("killed: %s", res.Output)
		}
		return res.ExitCode, errors.New("killed")
	}
	return res.ExitCode, res.Err
}

// maxCommandOutput is how much of a command's output tail a root's last
// error keeps.
const maxCommandOutput = 2048

// ingestEnv and reconcileEnv are the facts a command gets in WAKEWHEEL_*
// variables (doc.go lists them).
func ingestEnv(b Batch) []string {
	return []string{
		"WAKEWHEEL_ACTION=ingest",
		"WAKEWHEEL_ROOT=" + b.Root,
		"WAKEWHEEL_BATCH_SIZE=" + strconv.Itoa(len(b.Paths)),
		"WAKEWHEEL_BACKLOG=" + strconv.Itoa(b.Backlog),
		"WAKEWHEEL_SINCE_REF=" + b.SinceRef,
	}
}

func reconcileEnv(r ReconcileRun) []string {
	return []string{
		"WAKEWHEEL_ACTION=reconcile",
		"WAKEWHEEL_ROOT=" + r.Root,
		"WAKEWHEEL_STORE_VERSION=" + strconv.FormatUint(r.StoreVersion, 10),
		"WAKEWHEEL_SINCE_REF=" + r.SinceRef,
	}
}

// nulJoin is the ingest command's stdin: every path followed by a NUL.
func nulJoin(paths []string) []byte {
	n := 0
	for _, p := range paths {
		n += len(p) + 1
	}
	b := make([]byte, 0, n)
	for _, p := range paths {
		b = append(b, p...)
		b = append(b, 0)
	}
	return b
}
