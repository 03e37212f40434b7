package lanerun

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"syscall"
	"time"
)

// Command is one supervised run of an operator's command line.
type Command struct {
	Line    string
	Dir     string
	Env     []string
	Stdin   io.Reader
	Timeout time.Duration // 0: only the context bounds it
	Output  io.Writer     // stdout and stderr
}

// Outcome is how a run ended: ExitCode -1 when the command did not exit
// by itself (killed, timed out, never started); Err nil for exit 0.
type Outcome struct {
	ExitCode int
	TimedOut bool
	Err      error
}

// Exec runs one Command and waits for it, however it ends.
type Exec func(ctx context.Context, c Command) Outcome

// runCommand runs c as /bin/sh -c in a process group of its own, killed
// whole when the run ends or times out; on Linux the shell also dies with
// the daemon (Pdeathsig), and what it left behind is ended by the next
// daemon's Start (reapStale).
func runCommand(ctx context.Context, c Command) Outcome {
	if c.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, c.Timeout)
		defer cancel()
	}
	cmd := exec.CommandContext(ctx, "/bin/sh", "-c", c.Line)
	cmd.Dir, cmd.Env, cmd.Stdin = c.Dir, c.Env, c.Stdin
	cmd.Stdout, cmd.Stderr = c.Output, c.Output
	cmd.SysProcAttr = procAttr()
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 2 * time.Second
	err := cmd.Run()
	if cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) // what the command left in its group
	}
	out := Outcome{ExitCode: -1, Err: err}
	if cmd.ProcessState != nil && ctx.Err() == nil {
		out.ExitCode = cmd.ProcessState.ExitCode()
	}
	switch {
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		out.TimedOut = true
		out.Err = fmt.Errorf("killed after its timeout %s", c.Timeout)
	case ctx.Err() != nil:
		out.Err = fmt.Errorf("stopped: %w", ctx.Err())
	}
	return out
}
