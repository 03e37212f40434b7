package lanerun

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/rs/zerolog"
	"github.com/wakewheel/wakewheel/internal/clock"
	"github.com/wakewheel/wakewheel/internal/supervise"
	ob "github.com/wakewheel/wakewheel/obligations"
	"github.com/wakewheel/wakewheel/store"
)

// ErrBadReport: a hook's report that cannot be right (unknown state, an
// over-long field). Adapters answer it as a bad request.
var ErrBadReport = errors.New("lanerun: bad report")

// Lanes is what the manager needs of the obligations service;
// *wakes.Service satisfies it.
type Lanes interface {
	Digest(ctx context.Context, lane, who string) (ob.Digest, error)
	Deliver(ctx context.Context, lane, who string) (ob.Digest, error)
	Turn(ctx context.Context, lane string, mode ob.TurnMode, wakeID string, work bool) error
}

// Store is what the manager needs of persistence; *store.DB satisfies it.
type Store interface {
	Write(sync bool, ops ...store.Op) error
	Scan(ns, prefix string, fn func(key string, val []byte) error) error
}

// Config is one lane's operator settings (lanes.<name>.* in the config
// file; nothing an agent sends can set them).
type Config struct {
	// Agent is the headless runner's command line ("" for none).
	Agent string
	// AgentTimeout bounds one run.
	AgentTimeout time.Duration
	// AgentInput is how the digest reaches the run's stdin: "text" or "json".
	AgentInput string
	// Tmux is the pane to type prompts into ("" for none): a tmux target
	// such as work:agent.0 or %3.
	Tmux string
	// Prompt is the one-line prompt typed into the pane; {lane}, {wake}
	// and {head} are replaced.
	Prompt string
}

// Options configure a Manager. Lanes, Store and Clock are required.
type Options struct {
	Lanes  Lanes
	Store  Store
	Clock  clock.Clock
	Logger zerolog.Logger
	// Config returns a lane's settings; it is read at every wake, so a
	// reloaded config is in force at the next one.
	Config func(lane string) Config
	// Configured lists the lanes that have settings (checked at Start).
	Configured func() []string
	// Alert raises an alert (a failing runner, a missing pane).
	Alert func(code, key, msg string)
	// Dir holds the runners' logs and run files (one each per lane).
	Dir string
	// LogCap bounds a lane's log; past it the log is rotated to .1.
	LogCap int64
	// ActiveGrace bounds an active session report (see Session.Until).
	ActiveGrace time.Duration
	// RetryBase, RetryCap and RetryAttempts shape the backoff of a
	// failing runner and when it is alerted.
	RetryBase, RetryCap time.Duration
	RetryAttempts       int
	// Exec runs one supervised command (default: supervise.Run).
	Exec func(ctx context.Context, c supervise.Command) supervise.Result
}

// Manager is the daemon's last metre to agents: the sessions the hooks
// report, the lanes' headless runners and their pane deliveries. It is
// safe for concurrent use.
type Manager struct {
	opts Options
	log  zerolog.Logger

	mu       sync.Mutex
	sessions map[string]Session
	runs     map[string]*runLane
	panes    map[string]*paneLane
	closed   bool
	started  bool            // Start has ended what a killed daemon left
	early    map[string]bool // lanes kicked before Start, kicked again by it
	ctx      context.Context
	cancel   context.CancelFunc
	wg       sync.WaitGroup
}

// New loads the stored sessions and returns a manager. Call Start once
// the obligations service answers, and Close at shutdown.
func New(opts Options) (*Manager, error) {
	if opts.Lanes == nil || opts.Store == nil || opts.Clock == nil {
		return nil, errors.New("lanerun: Options.Lanes, Store and Clock are required")
	}
	if opts.Config == nil {
		opts.Config = func(string) Config { return Config{} }
	}
	if opts.Configured == nil {
		opts.Configured = func() []string { return nil }
	}
	if opts.Alert == nil {
		opts.Alert = func(string, string, string) {}
	}
	if opts.Exec == nil {
		opts.Exec = supervise.Run
	}
	if opts.RetryBase <= 0 {
		opts.RetryBase = time.Second
	}
	if opts.RetryCap < opts.RetryBase {
		opts.RetryCap = max(opts.RetryBase, 5*time.Minute)
	}
	if opts.RetryAttempts <= 0 {
		opts.RetryAttempts = 5
	}
	if opts.ActiveGrace <= 0 {
		opts.ActiveGrace = DefaultActiveGrace
	}
	if opts.LogCap <= 0 {
		opts.LogCap = DefaultLogCap
	}
	ctx, cancel := context.WithCancel(context.Background())
	m := &Manager{opts: opts, log: opts.Logger, sessions: map[string]Session{}, runs: map[string]*runLane{},
		panes: map[string]*paneLane{}, ctx: ctx, cancel: cancel}
	err := opts.Store.Scan(StoreNS, sessionPrefix, func(key string, val []byte) error {
		var s Session
		if err := json.Unmarshal(val, &s); err != nil {
			m.log.Warn().Str("key", key).Err(err).Msg("dropping an agent session record that does not decode")
			return nil
		}
		if s.State == SessionWaiting || s.State == SessionActive {
			// Its hooks ran against a dead daemon and failed open: a Stop
			// hook's long poll died, or a Stop came and let the agent
			// rest unreported. Waiting for a report that never comes would
			// leave the lane unserved until ActiveGrace ran out.
			s.State, s.Until = SessionResting, time.Time{}
		}
		m.sessions[strings.TrimPrefix(key, sessionPrefix)] = s
		return nil
	})
	if err != nil {
		cancel()
		return nil, fmt.Errorf("lanerun: load sessions: %w", err)
	}
	return m, nil
}

// Start ends what a killed daemon left running (a run's process group)
// and then gives every configured lane with unconsumed work its runner or
// pane: a run interrupted by a crash runs again.
func (m *Manager) Start() {
	m.reapStale()
	m.mu.Lock()
	m.started = true
	lanes := m.opts.Configured()
	for l := range m.early {
		lanes = append(lanes, l)
	}
	m.early = nil
	m.mu.Unlock()
	for _, lane := range lanes {
		m.kick(lane, nil)
	}
}

// Close cancels running runs (their groups are killed) and waits for them.
func (m *Manager) Close() {
	m.mu.Lock()
	m.closed = true
	m.cancel()
	for _, rl := range m.runs {
		if rl.retry != nil {
			rl.retry.Stop()
		}
	}
	m.mu.Unlock()
	m.wg.Wait()
}

// Wake is the obligations service's OnWake: a lane woke (a post, or a
// fallback re-wake). It never blocks.
func (m *Manager) Wake(w ob.Wake) {
	m.kick(w.Lane, &w)
}

// kick hands the lane's work to its runner and its pane, unless a hook's
// session is busy with it. w is nil when no wake caused it (a start, a
// session coming to rest).
func (m *Manager) kick(lane string, w *ob.Wake) {
	cfg := m.opts.Config(lane)
	if cfg.Agent == "" && cfg.Tmux == "" {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return
	}
	if !m.started { // a run of a killed daemon may still be going
		if m.early == nil {
			m.early = map[string]bool{}
		}
		m.early[lane] = true
		return
	}
	if s, ok := m.sessions[lane]; ok && s.Busy(m.opts.Clock.Now()) {
		return // the session's own Stop hook sees the work
	}
	if cfg.Agent != "" {
		m.triggerRunLocked(lane, w)
	}
	if cfg.Tmux != "" {
		m.triggerPaneLocked(lane, cfg, w)
	}
}

// busy reports whether the lane's session is busy with it now.
func (m *Manager) busy(lane string) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	s, ok := m.sessions[lane]
	return ok && s.Busy(m.opts.Clock.Now())
}

// Report folds a hook's report into the lane's session (persisted) and
// records its turn in the ledger; it returns the session as it stands.
// A session that came to rest or ended hands the lane's pending work to
// its runner or pane at once.
func (m *Manager) Report(ctx context.Context, lane string, r Report) (Session, error) {
	if err := ob.ValidateLane(lane); err != nil {
		return Session{}, err
	}
	if r.Turn != nil {
		if err := m.opts.Lanes.Turn(ctx, lane, r.Turn.Mode, r.Turn.WakeID, r.Turn.Work); err != nil {
			return Session{}, err
		}
	}
	if r.Session == nil {
		s, _ := m.Session(lane)
		return s, nil
	}
	if err := r.Session.check(); err != nil {
		return Session{}, err
	}
	if _, err := m.opts.Lanes.Digest(ctx, lane, ""); err != nil {
		return Session{}, err // an unknown lane is refused: it would never be read
	}
	m.mu.Lock()
	s := apply(m.sessions[lane], *r.Session, m.opts.ActiveGrace, m.opts.Clock.Now())
	m.sessions[lane] = s
	m.mu.Unlock()
	if err := m.opts.Store.Write(false, store.PutOp(StoreNS, sessionPrefix+lane, encodeSession(s))); err != nil {
		return s, fmt.Errorf("lanerun: store the session of lane %s: %w", lane, err)
	}
	if s.State == SessionResting || s.State == SessionEnded {
		m.kick(lane, nil)
	}
	return s, nil
}

// Session returns the lane's last reported session.
func (m *Manager) Session(lane string) (Session, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	s, ok := m.sessions[lane]
	return s, ok
}

// LaneStatus is what `lanes` shows of a lane's agent delivery.
type LaneStatus struct {
	Lane    string       `json:"lane"`
	Session *Session     `json:"session,omitempty"`
	Runner  *RunnerState `json:"runner,omitempty"`
	Pane    *PaneState   `json:"pane,omitempty"`
}

// Status returns every lane that has a session, a runner or a pane.
func (m *Manager) Status() []LaneStatus {
	m.mu.Lock()
	defer m.mu.Unlock()
	names := map[string]bool{}
	for _, l := range m.opts.Configured() {
		names[l] = true
	}
	for l := range m.sessions {
		names[l] = true
	}
	var out []LaneStatus
	for _, l := range slices.Sorted(maps.Keys(names)) {
		st := LaneStatus{Lane: l}
		if s, ok := m.sessions[l]; ok {
			st.Session = &s
		}
		cfg := m.opts.Config(l)
		if cfg.Agent != "" {
			rs := RunnerState{}
			if rl := m.runs[l]; rl != nil {
				rs = rl.state
				rs.Running = rl.running
			}
			st.Runner = &rs
		}
		if cfg.Tmux != "" {
			ps := PaneState{Target: cfg.Tmux}
			if pl := m.panes[l]; pl != nil {
				ps = pl.state
				ps.Target = cfg.Tmux
			}
			st.Pane = &ps
		}
		out = append(out, st)
	}
	return out
}

// go runs fn as one of the manager's goroutines (Close waits for them).
func (m *Manager) goLocked(fn func()) {
	m.wg.Add(1)
	go func() {
		defer m.wg.Done()
		fn()
	}()
}

// laneOf is lane's entry in byLane (the runs or the panes), made on first
// use. Guarded by Manager.mu.
func laneOf[T any](byLane map[string]*T, lane string) *T {
	l := byLane[lane]
	if l == nil {
		l = new(T)
		byLane[lane] = l
	}
	return l
}

// Registered numbers.
const (
	// DefaultActiveGrace: a turn reported active longer than this counts
	// as a crashed session, and the runner or pane may reach the lane.
	DefaultActiveGrace = 30 * time.Minute
	// DefaultLogCap: a lane's runner log is rotated past 1 MiB.
	DefaultLogCap = 1 << 20
)
