package agenthooks

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/wakewheel/wakewheel/api"
	"github.com/wakewheel/wakewheel/internal/clock"
	"github.com/wakewheel/wakewheel/lanerun"
	ob "github.com/wakewheel/wakewheel/obligations"
)

// Daemon is what a hook needs of the daemon; *api.Client satisfies it.
type Daemon interface {
	Digest(ctx context.Context, lane, who string) (ob.Digest, error)
	WaitOnce(ctx context.Context, lane, who, after string, timeout time.Duration) (api.WaitResult, error)
	Park(ctx context.Context, lane string) (ob.Checkpoint, error)
	Resume(ctx context.Context, lane, who string, cp *ob.Checkpoint) (ob.Digest, error)
	AgentReport(ctx context.Context, lane string, r lanerun.Report) (lanerun.Session, error)
	AgentSession(ctx context.Context, lane string) (lanerun.Session, bool, error)
}

// Options configure one hook run.
type Options struct {
	Host Host
	Lane string
	Who  string // consumer name in digests (default: the host)
	// Idle is how long a Stop hook waits for a wake when the lane holds
	// nothing for it, before the agent may rest.
	Idle  time.Duration
	Clock clock.Clock
	// MaxWait bounds one long poll (the daemon's own limit).
	MaxWait time.Duration
}

// Result is a hook's answer: Output for stdout, Note for stderr (why it
// did not block, when it could not reach the daemon).
type Result struct {
	Output Output
	Note   string
}

// Run handles one event. It never returns an error: whatever fails, the
// agent is not blocked and Note says why (fail-open).
func Run(ctx context.Context, d Daemon, o Options, ev Event) Result {
	if o.Who == "" {
		o.Who = string(o.Host)
	}
	if o.MaxWait <= 0 {
		o.MaxWait = api.MaxWait
	}
	if o.Clock == nil {
		o.Clock = clock.Real{}
	}
	h := hook{d: d, o: o, ev: ev}
	var out Output
	var err error
	switch ev.HookEventName {
	case EventStop:
		out, err = h.stop(ctx)
	case EventSessionStart:
		out, err = h.sessionStart(ctx)
	case EventUserPromptSubmit:
		out, err = h.promptSubmit(ctx)
	case EventPreCompact:
		err = h.park(ctx)
	case EventSessionEnd:
		err = h.sessionEnd(ctx)
	default:
		return Result{Note: fmt.Sprintf("wakewheel hook: event %q is not one wakewheel acts on; nothing done", ev.HookEventName)}
	}
	if err != nil {
		return Result{Note: failNote(o.Lane, ev.HookEventName, err)}
	}
	return Result{Output: out}
}

func failNote(lane, event string, err error) string {
	switch {
	case errors.Is(err, api.ErrDaemonDown):
		return fmt.Sprintf("wakewheel hook (%s, lane %s): the daemon is not running, so the agent is not held: %v", event, lane, err)
	default:
		return fmt.Sprintf("wakewheel hook (%s, lane %s): %v; the agent is not held", event, lane, err)
	}
}

type hook struct {
	d  Daemon
	o  Options
	ev Event
}

func (h hook) report(ctx context.Context, st lanerun.SessionState, wait time.Duration, turn *lanerun.Turn, block string) error {
	_, err := h.d.AgentReport(ctx, h.o.Lane, lanerun.Report{
		Session: &lanerun.SessionReport{Host: string(h.o.Host), ID: h.ev.SessionID, CWD: h.ev.CWD, State: st, Wait: wait, Block: block},
		Turn:    turn,
	})
	return err
}

// deliver hands the lane's digest to the agent now (RECEIVED rises to the
// head, so the agent may ack up to it); ok false when nothing is
// unconsumed any more.
func (h hook) deliver(ctx context.Context) (ob.Digest, bool, error) {
	res, err := h.d.WaitOnce(ctx, h.o.Lane, h.o.Who, "", 0)
	if err != nil || !res.Woke || res.Digest == nil {
		return ob.Digest{}, false, err
	}
	return *res.Digest, true, nil
}

// stop blocks with the digest when the lane holds work not yet blocked
// for in this stop chain; otherwise it waits (long polls through the
// daemon, up to Idle) for a wake, blocks on one, or lets the agent rest.
func (h hook) stop(ctx context.Context) (Output, error) {
	lastBlock := ""
	if s, ok, err := h.d.AgentSession(ctx, h.o.Lane); err != nil {
		return Output{}, err
	} else if ok && s.Host == string(h.o.Host) && s.ID == h.ev.SessionID {
		lastBlock = s.LastBlock
	}
	dg, err := h.d.Digest(ctx, h.o.Lane, h.o.Who)
	if err != nil {
		return Output{}, err
	}
	if ShouldBlock(h.ev.StopHookActive, dg, lastBlock) {
		if out, ok, err := h.block(ctx); ok || err != nil {
			return out, err
		}
	}
	if err := h.report(ctx, lanerun.SessionWaiting, h.o.Idle, nil, ""); err != nil {
		return Output{}, err
	}
	after := dg.WakeID
	deadline := h.o.Clock.Now().Add(h.o.Idle)
	for {
		left := deadline.Sub(h.o.Clock.Now())
		if left <= 0 {
			break
		}
		res, err := h.d.WaitOnce(ctx, h.o.Lane, h.o.Who, after, min(left, h.o.MaxWait))
		if err != nil {
			return Output{}, err
		}
		if !res.Woke || res.Digest == nil {
			continue
		}
		if ShouldBlock(h.ev.StopHookActive, *res.Digest, lastBlock) {
			return h.blockWith(ctx, *res.Digest)
		}
		after = res.Digest.WakeID
	}
	return Output{}, h.report(ctx, lanerun.SessionResting, 0, nil, "")
}

// block delivers the digest and blocks with it (ok false: the work was
// consumed meanwhile, nothing to block for).
func (h hook) block(ctx context.Context) (Output, bool, error) {
	dg, ok, err := h.deliver(ctx)
	if err != nil || !ok {
		return Output{}, false, err
	}
	out, err := h.blockWith(ctx, dg)
	return out, true, err
}

// blockWith blocks with a delivered digest, recording the turn and the
// wake blocked for first: if the record cannot be made, the agent is not
// blocked (the next wake comes again).
func (h hook) blockWith(ctx context.Context, dg ob.Digest) (Output, error) {
	turn := &lanerun.Turn{Mode: ob.TurnHook, WakeID: dg.WakeID, Work: true}
	if err := h.report(ctx, lanerun.SessionActive, 0, turn, dg.WakeID); err != nil {
		return Output{}, err
	}
	return Block(BlockReason(dg)), nil
}

// sessionStart adds the resume digest as context: since the last park
// when there is one, else since CONSUMED.
func (h hook) sessionStart(ctx context.Context) (Output, error) {
	if _, err := h.d.Digest(ctx, h.o.Lane, h.o.Who); err != nil {
		return Output{}, err
	}
	if err := h.report(ctx, lanerun.SessionActive, 0, nil, ""); err != nil {
		return Output{}, err
	}
	dg, err := h.d.Resume(ctx, h.o.Lane, h.o.Who, nil)
	var e *api.Error
	if errors.As(err, &e) && e.Err.Code == "bad_checkpoint" {
		var ok bool
		if dg, ok, err = h.deliver(ctx); err == nil && !ok {
			dg, err = h.d.Digest(ctx, h.o.Lane, h.o.Who)
		}
	}
	if err != nil {
		return Output{}, err
	}
	source := h.ev.Source
	if source == "" {
		source = "start"
	}
	return Context(EventSessionStart, ResumeContext(dg, source)), nil
}

// promptSubmit adds the unconsumed human messages as context.
func (h hook) promptSubmit(ctx context.Context) (Output, error) {
	if err := h.report(ctx, lanerun.SessionActive, 0, nil, ""); err != nil {
		return Output{}, err
	}
	dg, err := h.d.Digest(ctx, h.o.Lane, h.o.Who)
	if err != nil || dg.Counts.Human == 0 {
		return Output{}, err
	}
	dg, ok, err := h.deliver(ctx)
	if err != nil || !ok {
		return Output{}, err
	}
	if text := PromptContext(dg); text != "" {
		return Context(EventUserPromptSubmit, text), nil
	}
	return Output{}, nil
}

// park is phase one of the two-phase park: the CONSUMED cursor is
// checkpointed (synced) before the host clears or compacts the context.
func (h hook) park(ctx context.Context) error {
	_, err := h.d.Park(ctx, h.o.Lane)
	return err
}

// sessionEnd parks before a clear, and records that the session ended
// (the runner or the pane may take over the lane).
func (h hook) sessionEnd(ctx context.Context) error {
	if h.ev.Reason == "clear" {
		if err := h.park(ctx); err != nil {
			return err
		}
	}
	return h.report(ctx, lanerun.SessionEnded, 0, nil, "")
}
