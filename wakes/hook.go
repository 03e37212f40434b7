package wakes

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/rs/zerolog"
	"github.com/wakewheel/wakewheel/internal/clock"
	ob "github.com/wakewheel/wakewheel/obligations"
)

// DefaultHookTimeout bounds one run of a wake hook.
const DefaultHookTimeout = 2 * time.Minute

// maxHookOutput is how much of a hook's output is kept for the log.
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
	ctx, cancel := context.WithTimeout(h.ctx, h.timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "/bin/sh", "-c", command)
	cmd.Env = append(os.Environ(),
		"WAKEWHEEL_LANE="+w.Lane,
		"WAKEWHEEL_WAKE_ID="+w.WakeID,
		"WAKEWHEEL_WAKE_REASON="+string(w.Reason),
		"WAKEWHEEL_WAKE_CLASS="+string(w.Class),
		"WAKEWHEEL_HEAD="+strconv.FormatUint(w.Head, 10),
	)
	var out capped
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.WaitDelay = time.Second // a child holding the pipes open cannot wedge us
	start := h.clock.Now()
	err := cmd.Run()
	ev := h.log.Info()
	if err != nil {
		ev = h.log.Warn().Err(err)
	}
	ev.Str("lane", w.Lane).Str("wake_id", w.WakeID).Str("reason", string(w.Reason)).
		Dur("took", h.clock.Now().Sub(start)).Str("output", out.String()).Msg("wake hook ran")
	if err != nil && h.ctx.Err() == nil {
		why := err.Error()
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			why = fmt.Sprintf("killed after its timeout %s", h.timeout)
		}
		h.fail("wake_hook_failed", "lane/"+w.Lane, fmt.Sprintf("wake hook of lane %s (wake %s): %s: %s",
			w.Lane, w.WakeID, why, strings.TrimSpace(out.String())))
	}
}

// close kills running hooks and waits for them.
func (h *hooks) close() {
	h.mu.Lock()
	h.cancel()
	h.mu.Unlock()
	h.wg.Wait()
}

// capped keeps the first maxHookOutput bytes written to it.
type capped struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (c *capped) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if room := maxHookOutput - c.buf.Len(); room > 0 {
		c.buf.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}

func (c *capped) String() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.buf.String()
}
