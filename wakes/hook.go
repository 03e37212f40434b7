package wakes

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"sync"
	"time"

	"github.com/rs/zerolog"
	"github.com/wakewheel/wakewheel/internal/clock"
	ob "github.com/wakewheel/wakewheel/obligations"

	"github.com/wakewheel/wakewheel/internal/supervise"
)

// DefaultHookTimeout bounds one run of a wake hook.
const DefaultHookTimeout = 2 * time.Minute

// maxHookOutput is how much of a hook's output (its tail) is kept for the
// log and the alert.
const maxHookOutput = 4 << 10

// hooks runs the operator's per-lane wake hook: a shell command started on
// every wake of its lane, with the wake in its environment:
//
//	WAKEWHEEL_LANE, WAKEWHEEL_WAKE_ID, WAKEWHEEL_WAKE_REASON (post or
//	redeliver), WAKEWHEEL_WAKE_CLASS, WAKEWHEEL_HEAD
//
// At most one run per lane at a time: wakes that arrive while it runs
// coalesce into one more run afterwards, with the latest wake. Runs are
// supervised (timeout, then kill) and never block the pipeline or the
// runner. A run that fails or times out is alerted (wake_hook_failed).
// Runs go through package supervise: at the timeout (and when the hook
// exits) its whole process group is killed, so nothing it started
// outlives the run unless it detached itself (setsid).
type hooks struct {
	cmd     func(lane string) string
	timeout time.Duration
	clock   clock.Clock
	log     zerolog.Logger
	fail    func(code, key, msg string)

	mu     sync.Mutex
	lanes  map[string]*hookLane
	wg     sync.WaitGroup
	ctx    context.Context
	cancel context.CancelFunc
}

type hookLane struct {
	running bool
	next    *ob.Wake
}

func newHooks(cmd func(string) string, timeout time.Duration, clk clock.Clock, log zerolog.Logger, fail func(code, key, msg string)) *hooks {
	ctx, cancel := context.WithCancel(context.Background())
	return &hooks{cmd: cmd, timeout: timeout, clock: clk, log: log, fail: fail, lanes: map[string]*hookLane{}, ctx: ctx, cancel: cancel}
}

// trigger starts the lane's hook for w, or queues w behind a running one.
func (h *hooks) trigger(w ob.Wake) {
	if h.cmd == nil || h.cmd(w.Lane) == "" {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.ctx.Err() != nil {
		return
	}
	hl := h.lanes[w.Lane]
	if hl == nil {
		hl = &hookLane{}
		h.lanes[w.Lane] = hl
	}
	if hl.running {
		hl.next = &w
		return
	}
	hl.running = true
	h.wg.Add(1)
	go h.loop(hl, w)
}

func (h *hooks) loop(hl *hookLane, w ob.Wake) {
	defer h.wg.Done()
	for {
		h.run(w)
		h.mu.Lock()
		if hl.next == nil || h.ctx.Err() != nil {
			hl.running = false
			h.mu.Unlock()
			return
		}
		w, hl.next = *hl.next, nil
		h.mu.Unlock()
	}
}

func (h *hooks) run(w ob.Wake) {
	command := h.cmd(w.Lane)
	if command == "" {
		return
	}
	res := supervise.Run(h.ctx, supervise.Command{
		Line:    command,
		Timeout: h.timeout,
		Env: append(os.Environ(),
			"WAKEWHEEL_LANE="+w.Lane,
			"WAKEWHEEL_WAKE_ID="+w.WakeID,
			"WAKEWHEEL_WAKE_REASON="+string(w.Reason),
			"WAKEWHEEL_WAKE_CLASS="+string(w.Class),
			"WAKEWHEEL_HEAD="+strconv.FormatUint(w.Head, 10),
		),
		OutputCap: maxHookOutput,
		Clock:     h.clock,
	})
	ev := h.log.Info()
	if res.Err != nil {
		ev = h.log.Warn().Err(res.Err)
	}
	ev.Str("lane", w.Lane).Str("wake_id", w.WakeID).Str("reason", string(w.Reason)).
		Dur("took", res.Took).Int("exit", res.ExitCode).Str("output", res.Output).Msg("wake hook ran")
	if res.Err != nil && h.ctx.Err() == nil {
		h.fail("wake_hook_failed", "lane/"+w.Lane, fmt.Sprintf("wake hook of lane %s (wake %s): %v", w.Lane, w.WakeID, res.Err))
	}
}

// close kills running hooks and waits for them.
func (h *hooks) close() {
	h.mu.Lock()
	h.cancel()
	h.mu.Unlock()
	h.wg.Wait()
}
