package detectors

import (
	"context"
	"sync"
)

// A detection computed ahead. A big git root's detection is mostly one
// `git status` (an lstat per tracked file: ~0.6 s for 100,000 files on a
// loaded 2-core machine) that used to start only when the burst's silence
// had run out. The caller can instead start it during the silence, once
// the tree has been quiet a moment (Ahead), and the detection at the
// burst's end takes its answer when nothing happened since it started.
//
// Why the answer is the detection's own: the caller's mark is its count of
// the root's events, read before the git children start. A change made
// after they started is an event; if it is counted by the time the
// detection runs, the marks differ and the detection computes afresh. If
// its event is still on its way, it extends a new burst when it arrives,
// whose detection (since the Head this one returns) finds the change in
// status. Either way nothing is missed — the same argument as for a change
// made while a detection's own status runs. The caller gives no mark (0)
// when events may be missing (polling), and an ahead answer is then never
// taken.

// ahead is a changed set being computed ahead of its detection.
type ahead struct {
	since  string
	mark   uint64
	cancel context.CancelFunc
	done   chan struct{}
	cs     ChangeSet
	err    error
}

// aheadSlot holds a tracker's one computation ahead. Its goroutines are
// the caller's (Ahead runs on it) and the detection's (Detect).
type aheadSlot struct {
	mu  sync.Mutex
	cur *ahead
}

// Ahead computes the git changed set since sinceRef now, on the caller's
// goroutine, for a later Detect whose Scan has the same SinceRef and Mark;
// mark is the caller's count of the root's events, read before the call,
// never 0. It replaces (cancels) a computation still running, and returns
// when its own is done or cancelled (Unahead, ctx). Nothing is computed
// while .git/index.lock exists (a git command is changing the index: the
// detection waits for it anyway). Only for a git root: call it when Probe
// said so.
func (t *Tracker) Ahead(ctx context.Context, sinceRef string, mark uint64) {
	if mark == 0 {
		return
	}
	if _, top, _, err := gitRoot(t.dir); err != nil || IndexLocked(top) {
		return
	}
	ctx, cancel := context.WithCancel(ctx)
	a := &ahead{since: sinceRef, mark: mark, cancel: cancel, done: make(chan struct{})}
	t.ahead.mu.Lock()
	if old := t.ahead.cur; old != nil {
		old.cancel()
	}
	t.ahead.cur = a
	t.ahead.mu.Unlock()
	defer cancel()
	defer close(a.done)
	a.cs, a.err = GitChanged(ctx, t.dir, sinceRef, t.skip)
}

// Unahead cancels a computation ahead (an event came: its answer would be
// stale). It is cheap when none runs.
func (t *Tracker) Unahead() {
	t.ahead.mu.Lock()
	if a := t.ahead.cur; a != nil {
		a.cancel()
		t.ahead.cur = nil
	}
	t.ahead.mu.Unlock()
}

// takeAhead returns the answer computed ahead for a detection since
// sinceRef at mark, waiting for it if it is still running; ok is false
// when there is none to take (none started, another since ref or mark,
// cancelled, failed), and the detection computes afresh.
func (t *Tracker) takeAhead(ctx context.Context, sinceRef string, mark uint64) (cs ChangeSet, ok bool) {
	t.ahead.mu.Lock()
	a := t.ahead.cur
	t.ahead.cur = nil
	t.ahead.mu.Unlock()
	if a == nil {
		return ChangeSet{}, false
	}
	if mark == 0 || a.mark != mark || a.since != sinceRef {
		a.cancel()
		return ChangeSet{}, false
	}
	select {
	case <-a.done:
	case <-ctx.Done():
		a.cancel()
		return ChangeSet{}, false
	}
	return a.cs, a.err == nil
}
