package lanerun

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/wakewheel/wakewheel/internal/clock"
	"github.com/wakewheel/wakewheel/internal/supervise"
	ob "github.com/wakewheel/wakewheel/obligations"
)

// RunnerState is what `lanes` shows of a lane's headless runner.
type RunnerState struct {
	Running  bool      `json:"running"`
	Runs     int       `json:"runs"`
	Failures int       `json:"failures"` // consecutive failed runs
	LastWake string    `json:"last_wake,omitempty"`
	LastExit int       `json:"last_exit"`
	LastErr  string    `json:"last_error,omitempty"`
	Last     time.Time `json:"last,omitzero"`
	// NotBefore is when a failing runner may start again (its backoff).
	NotBefore time.Time `json:"not_before,omitzero"`
}

// runLane is one lane's runner: at most one run at a time; a wake during
// a run marks it dirty, and one more run follows only if work is still
// unconsumed then. Guarded by Manager.mu.
type runLane struct {
	running bool
	dirty   bool
	wake    *ob.Wake // the latest wake seen
	retry   clock.Timer
	state   RunnerState
}

// triggerRunLocked starts the lane's runner, or marks a running one dirty.
func (m *Manager) triggerRunLocked(lane string, w *ob.Wake) {
	rl := laneOf(m.runs, lane)
	if w != nil {
		rl.wake = w
	}
	if rl.running {
		rl.dirty = true
		return
	}
	if now := m.opts.Clock.Now(); now.Before(rl.state.NotBefore) {
		m.retryLocked(lane, rl, rl.state.NotBefore.Sub(now))
		return
	}
	rl.running = true
	m.goLocked(func() { m.runLoop(lane, rl) })
}

// retryLocked triggers the lane again after d (a failing runner's backoff;
// one timer per lane).
func (m *Manager) retryLocked(lane string, rl *runLane, d time.Duration) {
	if rl.retry != nil {
		return
	}
	t := m.opts.Clock.NewTimer(d)
	rl.retry = t
	m.goLocked(func() {
		select {
		case <-t.C():
		case <-m.ctx.Done():
			return
		}
		m.mu.Lock()
		rl.retry = nil
		m.mu.Unlock()
		m.kick(lane, nil)
	})
}

func (m *Manager) runLoop(lane string, rl *runLane) {
	for {
		m.runOnce(lane, rl)
		m.mu.Lock()
		if !rl.dirty || m.closed {
			rl.running = false
			m.mu.Unlock()
			return
		}
		rl.dirty = false
		if now := m.opts.Clock.Now(); now.Before(rl.state.NotBefore) {
			rl.running = false
			m.retryLocked(lane, rl, rl.state.NotBefore.Sub(now))
			m.mu.Unlock()
			return
		}
		m.mu.Unlock()
	}
}

// runOnce delivers the lane's digest and, if it holds work, runs the
// operator's command with it on stdin. No work, no run.
func (m *Manager) runOnce(lane string, rl *runLane) {
	cfg := m.opts.Config(lane)
	if cfg.Agent == "" {
		return
	}
	ctx := m.ctx
	if m.busy(lane) {
		return // a session reported since the trigger: its hook has the lane
	}
	d, err := m.opts.Lanes.Deliver(ctx, lane, "runner")
	if err != nil {
		if ctx.Err() == nil {
			m.log.Warn().Err(err).Str("lane", lane).Msg("runner: could not deliver the digest")
		}
		return
	}
	if d.Noop {
		return
	}
	if err := m.opts.Lanes.Turn(ctx, lane, ob.TurnRunner, d.WakeID, true); err != nil {
		m.log.Warn().Err(err).Str("lane", lane).Msg("runner: could not record the turn")
	}
	m.mu.Lock()
	sess := m.sessions[lane]
	w := rl.wake
	rl.state.Runs++
	rl.state.LastWake, rl.state.Last = d.WakeID, m.opts.Clock.Now()
	n := rl.state.Runs
	m.mu.Unlock()

	input, err := digestInput(d, cfg.AgentInput)
	if err != nil {
		m.log.Error().Err(err).Str("lane", lane).Msg("runner: could not encode the digest")
		return
	}
	runFile := filepath.Join(m.opts.Dir, lane+".run")
	env := append(os.Environ(),
		"WAKEWHEEL_LANE="+lane,
		"WAKEWHEEL_WAKE_ID="+d.WakeID,
		"WAKEWHEEL_HEAD="+strconv.FormatUint(d.Head, 10),
		"WAKEWHEEL_CONSUMED="+strconv.FormatUint(d.Consumed, 10),
		"WAKEWHEEL_SESSION_HOST="+sess.Host,
		"WAKEWHEEL_SESSION_ID="+sess.ID,
		"WAKEWHEEL_SESSION_CWD="+sess.CWD,
		"WAKEWHEEL_RUN_FILE="+runFile,
	)
	if w != nil {
		env = append(env, "WAKEWHEEL_WAKE_REASON="+string(w.Reason), "WAKEWHEEL_WAKE_CLASS="+string(w.Class))
	}
	dir := ""
	if sess.CWD != "" {
		if fi, err := os.Stat(sess.CWD); err == nil && fi.IsDir() {
			dir = sess.CWD
		}
	}
	stdin, closeIn := m.stdinFile(lane, input)
	defer closeIn()
	logf := m.openLog(lane)
	fmt.Fprintf(logf, "=== run %d of lane %s, wake %s, head %d, at %s\n", n, lane, d.WakeID, d.Head,
		m.opts.Clock.Now().UTC().Format(time.RFC3339))
	// The shell writes its pid (the run's process group) for a daemon
	// restarted after a crash, which kills what is left of the group
	// before it starts the lane's next run.
	out := m.opts.Exec(ctx, supervise.Command{
		Line:      `echo $$ > "$WAKEWHEEL_RUN_FILE"; ` + cfg.Agent,
		Dir:       dir,
		Env:       env,
		Stdin:     stdin,
		Timeout:   cfg.AgentTimeout,
		OutputCap: runOutputCap,
		Clock:     m.opts.Clock,
	})
	if out.Output != "" {
		fmt.Fprintf(logf, "%s\n", out.Output)
	}
	if out.Dropped > 0 {
		fmt.Fprintf(logf, "(%d earlier bytes of output not kept)\n", out.Dropped)
	}
	fmt.Fprintf(logf, "=== run %d exit %d\n", n, out.ExitCode)
	logf.Close()
	os.Remove(runFile)

	m.mu.Lock()
	defer m.mu.Unlock()
	rl.state.LastExit = out.ExitCode
	if out.Err == nil {
		rl.state.Failures, rl.state.LastErr, rl.state.NotBefore = 0, "", time.Time{}
		return
	}
	if m.closed {
		return // stopped by shutdown, not a failure of the command
	}
	rl.state.Failures++
	rl.state.LastErr = firstLine(out.Err.Error())
	backoff := m.opts.RetryBase << min(rl.state.Failures-1, 30)
	rl.state.NotBefore = m.opts.Clock.Now().Add(min(backoff, m.opts.RetryCap))
	m.log.Warn().Str("lane", lane).Int("failures", rl.state.Failures).Err(out.Err).Msg("runner: the agent command failed")
	if rl.state.Failures == m.opts.RetryAttempts {
		msg := fmt.Sprintf("the agent command of lane %s failed %d times in a row (last: %s); it backs off to %s between runs",
			lane, rl.state.Failures, out.Err, m.opts.RetryCap)
		go m.opts.Alert("agent_run_failing", "lane/"+lane, msg)
	}
}

// digestInput is what a run reads on stdin: the digest's text with the
// instruction to ack, or its JSON.
func digestInput(d ob.Digest, mode string) ([]byte, error) {
	if mode == "json" {
		return json.Marshal(d)
	}
	return []byte(d.Text() + Instruction(d)), nil
}

// Instruction tells an agent how to consume what it was handed.
func Instruction(d ob.Digest) string {
	return fmt.Sprintf("When you have acted on every message above, run: wakewheel ack --lane %s --upto %d\n", d.Lane, d.Head)
}

// stdinFile holds a run's input in a file (<Dir>/<lane>.in) the child
// reads directly: the whole digest is there before the run starts, so a
// daemon killed mid-run can never hand its agent a truncated digest
// (which the agent would then ack in full). Without a Dir, a pipe.
func (m *Manager) stdinFile(lane string, input []byte) (io.Reader, func()) {
	if m.opts.Dir != "" {
		path := filepath.Join(m.opts.Dir, lane+".in")
		if err := os.WriteFile(path, input, 0o600); err == nil {
			if f, err := os.Open(path); err == nil {
				return f, func() { f.Close(); os.Remove(path) }
			}
		}
		m.log.Warn().Str("lane", lane).Msg("runner: the digest goes through a pipe (its file could not be written)")
	}
	return bytes.NewReader(input), func() {}
}

// runOutputCap is how much of a run's output (its tail) reaches the log.
const runOutputCap = 64 << 10

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// openLog opens the lane's log for appending, rotating it past LogCap. A
// log that cannot be opened is replaced by a sink (the run goes ahead).
func (m *Manager) openLog(lane string) io.WriteCloser {
	if m.opts.Dir == "" {
		return nopCloser{io.Discard}
	}
	path := filepath.Join(m.opts.Dir, lane+".log")
	if fi, err := os.Stat(path); err == nil && fi.Size() > m.opts.LogCap {
		_ = os.Rename(path, path+".1")
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		m.log.Warn().Err(err).Str("lane", lane).Msg("runner: no log for this run")
		return nopCloser{io.Discard}
	}
	return &cappedFile{f: f, left: m.opts.LogCap}
}

type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }

// cappedFile stops writing once one run wrote the log's cap (a chatty
// command cannot fill the disk).
type cappedFile struct {
	mu   sync.Mutex
	f    *os.File
	left int64
}

func (c *cappedFile) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.left <= 0 {
		return len(p), nil
	}
	q := p[:min(int64(len(p)), c.left)]
	c.left -= int64(len(q))
	_, err := c.f.Write(q)
	return len(p), err
}

func (c *cappedFile) Close() error { return c.f.Close() }
