package lanerun

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/wakewheel/wakewheel/internal/supervise"
	ob "github.com/wakewheel/wakewheel/obligations"
)

// DefaultPrompt is typed into a lane's pane on a wake when the lane sets
// no prompt of its own: one line that says where the work is and how to
// consume it.
const DefaultPrompt = "wakewheel: lane {lane} has unconsumed work (wake {wake}). Read it with `wakewheel digest --lane {lane}`, act on every message, then run `wakewheel ack --lane {lane} --upto {head}`."

// tmuxTimeout bounds one tmux command.
const tmuxTimeout = 5 * time.Second

// PaneState is what `lanes` shows of a lane's pane delivery.
type PaneState struct {
	Target  string    `json:"target"`
	Missing bool      `json:"missing"` // the pane did not exist at the last wake
	Prompts int       `json:"prompts"`
	Last    string    `json:"last_wake,omitempty"`
	LastAt  time.Time `json:"last_at,omitzero"`
	LastErr string    `json:"last_error,omitempty"`
}

// paneLane is one lane's pane delivery: deliveries run one at a time, the
// latest wake waiting behind a running one. Guarded by Manager.mu.
type paneLane struct {
	busy  bool
	next  *ob.Wake
	kick  bool      // a delivery was asked without a wake
	sent  string    // the wake id last prompted
	sentW time.Time // and the time of the wake it answered
	state PaneState
}

func (m *Manager) triggerPaneLocked(lane string, cfg Config, w *ob.Wake) {
	pl := laneOf(m.panes, lane)
	if w != nil {
		pl.next = w
	} else {
		pl.kick = true
	}
	if pl.busy {
		return
	}
	pl.busy = true
	m.goLocked(func() { m.paneLoop(lane, pl) })
}

func (m *Manager) paneLoop(lane string, pl *paneLane) {
	for {
		m.mu.Lock()
		w, kick := pl.next, pl.kick
		pl.next, pl.kick = nil, false
		if (w == nil && !kick) || m.closed {
			pl.busy = false
			m.mu.Unlock()
			return
		}
		m.mu.Unlock()
		m.prompt(lane, pl, w)
	}
}

// prompt types the lane's prompt into its pane, at most once per wake: a
// post's wake once, and each fallback re-wake of it once more (a prompt
// lost in a busy pane comes again at the class cadence; the ack, not the
// keystroke, consumes). A wake-less kick prompts only a wake id never
// prompted.
func (m *Manager) prompt(lane string, pl *paneLane, w *ob.Wake) {
	cfg := m.opts.Config(lane)
	if cfg.Tmux == "" {
		return
	}
	ctx := m.ctx
	if m.busy(lane) {
		return
	}
	d, err := m.opts.Lanes.Digest(ctx, lane, "")
	if err != nil || d.Noop {
		return
	}
	m.mu.Lock()
	switch {
	case w == nil && pl.sent == d.WakeID:
		m.mu.Unlock()
		return
	case w != nil && w.WakeID == pl.sent && (w.Reason == ob.WakePost || w.At.Equal(pl.sentW)):
		m.mu.Unlock()
		return
	}
	m.mu.Unlock()

	// list-panes resolves the target strictly (display-message would fall
	// back to the current pane: a prompt must never land in another one).
	if _, err := m.tmux(ctx, "list-panes", "-t", cfg.Tmux, "-F", "#{pane_id}"); err != nil {
		m.paneMissing(lane, pl, cfg.Tmux, err)
		return
	}
	d, err = m.opts.Lanes.Deliver(ctx, lane, "pane")
	if err != nil || d.Noop {
		return
	}
	text := Render(cfg.Prompt, d)
	_, err = m.tmux(ctx, "send-keys", "-t", cfg.Tmux, "-l", "--", text)
	if err == nil {
		_, err = m.tmux(ctx, "send-keys", "-t", cfg.Tmux, "Enter")
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	pl.state.Missing = false
	if err != nil {
		pl.state.LastErr = err.Error()
		return
	}
	pl.sent, pl.sentW = d.WakeID, time.Time{}
	if w != nil {
		pl.sentW = w.At
	}
	pl.state.Prompts++
	pl.state.Last, pl.state.LastAt, pl.state.LastErr = d.WakeID, m.opts.Clock.Now(), ""
	go func() {
		if err := m.opts.Lanes.Turn(context.WithoutCancel(ctx), lane, ob.TurnPane, d.WakeID, true); err != nil {
			m.log.Warn().Err(err).Str("lane", lane).Msg("pane: could not record the turn")
		}
	}()
}

// paneMissing records a missing pane and alerts once per disappearance;
// the next try is the next wake (the class cadence), never a hot retry.
func (m *Manager) paneMissing(lane string, pl *paneLane, target string, err error) {
	m.mu.Lock()
	was := pl.state.Missing
	pl.state.Missing, pl.state.LastErr = true, err.Error()
	m.mu.Unlock()
	m.log.Warn().Str("lane", lane).Str("pane", target).Err(err).Msg("pane: the lane's tmux pane does not exist")
	if !was {
		m.opts.Alert("agent_pane_missing", "lane/"+lane, fmt.Sprintf(
			"lane %s: tmux pane %q does not exist (%v); its work stays unconsumed and is offered again at the next wake",
			lane, target, err))
	}
}

// Render fills a prompt template ({lane}, {wake}, {head}); an empty
// template is DefaultPrompt. The result is one line.
func Render(prompt string, d ob.Digest) string {
	if prompt == "" {
		prompt = DefaultPrompt
	}
	r := strings.NewReplacer("{lane}", d.Lane, "{wake}", d.WakeID, "{head}", strconv.FormatUint(d.Head, 10), "\n", " ", "\r", " ")
	return r.Replace(prompt)
}

// tmux runs one tmux command (bounded) and returns its output.
func (m *Manager) tmux(ctx context.Context, args ...string) (string, error) {
	res := m.opts.Exec(ctx, supervise.Command{Argv: append([]string{"tmux"}, args...), Timeout: tmuxTimeout, Clock: m.opts.Clock})
	if res.Err != nil {
		return "", fmt.Errorf("tmux %s: %w", args[0], res.Err)
	}
	return res.Output, nil
}
