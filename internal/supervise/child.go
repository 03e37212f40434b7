package supervise

import (
	"bytes"
	"fmt"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/wakewheel/wakewheel/internal/clock"
)

// Child is a long-lived command the daemon runs beside itself (the broker
// node of a fleet of one) under the safety of a run: a process group of
// its own, Pdeathsig SIGKILL on Linux (a daemon killed with SIGKILL takes
// it along), its output into a capped Tail, and whatever is left of its
// group killed when it ends. It has no timeout: it runs until Stop, or
// until it ends by itself (Done).
type Child struct {
	cmd   *exec.Cmd
	out   *Tail
	pipes *pipes
	done  chan struct{}

	mu  sync.Mutex
	err error // how it ended, once done is closed
}

// Start starts c (Line or Argv; Dir, Env, Stdin; Stdout and Stderr;
// OutputCap; WaitDelay; Timeout and Clock are not used) and returns once
// the child runs.
func Start(c Command) (*Child, error) {
	name, args, err := c.program()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(name, args...)
	cmd.Dir, cmd.Env, cmd.Stdin = c.Dir, c.Env, c.Stdin
	if cmd.Stdin == nil {
		cmd.Stdin = bytes.NewReader(nil)
	}
	ch := &Child{cmd: cmd, out: &Tail{Max: c.OutputCap}, done: make(chan struct{})}
	if ch.pipes, err = attach(cmd, c, ch.out); err != nil {
		return nil, fmt.Errorf("could not start: %w", err)
	}
	err = cmd.Start()
	ch.pipes.closeWriters()
	if err != nil {
		ch.pipes.drain(0)
		return nil, startError(c, err)
	}
	go ch.wait()
	return ch, nil
}

func (ch *Child) wait() {
	err := ch.cmd.Wait()
	_ = syscall.Kill(-ch.cmd.Process.Pid, syscall.SIGKILL)
	ch.pipes.drain(ch.cmd.WaitDelay)
	ch.mu.Lock()
	ch.err = err
	ch.mu.Unlock()
	close(ch.done)
}

// Pid is the child's process id (and its group's).
func (ch *Child) Pid() int { return ch.cmd.Process.Pid }

// Done is closed when the child has ended and its output is drained.
func (ch *Child) Done() <-chan struct{} { return ch.done }

// Err is how the child ended, once Done is closed: nil for exit 0,
// otherwise its exit status or signal (Output has its last words).
func (ch *Child) Err() error {
	ch.mu.Lock()
	defer ch.mu.Unlock()
	return ch.err
}

// Output is the tail of what the child wrote so far.
func (ch *Child) Output() string { return strings.TrimSpace(ch.out.String()) }

// Stop asks the child to end (SIGTERM to its group), kills the group
// after grace, and returns once the child is gone (at once when it had
// already ended).
func (ch *Child) Stop(grace time.Duration) {
	select {
	case <-ch.done:
		return
	default:
	}
	_ = syscall.Kill(-ch.cmd.Process.Pid, syscall.SIGTERM)
	t := clock.Real{}.NewTimer(grace)
	defer t.Stop()
	select {
	case <-ch.done:
	case <-t.C():
		_ = syscall.Kill(-ch.cmd.Process.Pid, syscall.SIGKILL)
		<-ch.done
	}
}
