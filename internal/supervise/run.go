package supervise

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"

	"github.com/wakewheel/wakewheel/internal/clock"
)

// DefaultWaitDelay is how long a run waits, once its group was killed or
// its command exited, for the output pipes to close: a descendant that
// left the group and holds them cannot wedge the run.
const DefaultWaitDelay = 2 * time.Second

// ErrTimeout is wrapped by Result.Err when the command was killed at its
// timeout.
var ErrTimeout = errors.New("supervise: timed out")

// ErrNoDir is wrapped by Result.Err when the command could not start
// because its working directory does not exist (a moved or deleted
// root): retrying cannot help until the directory is back.
var ErrNoDir = errors.New("supervise: working directory does not exist")

// Command is one run to supervise. The zero value of every field but Line
// (or Argv) is usable.
type Command struct {
	// Line is a command line, run as Shell -c Line.
	Line string
	// Shell runs Line (default /bin/sh).
	Shell string
	// Argv, when Line is empty, is a program and its arguments, run
	// without a shell (Argv[0] is looked up in PATH).
	Argv []string

	// Dir is the working directory ("" is the daemon's).
	Dir string
	// Env is the child's whole environment; nil inherits the daemon's.
	Env []string
	// Stdin is the child's standard input (nil: empty).
	Stdin io.Reader

	// Timeout bounds the run (0: only the caller's context does).
	Timeout time.Duration
	// OutputCap is how many bytes of the output's tail the Result keeps
	// (0: DefaultOutputCap).
	OutputCap int
	// Stdout, when set, also receives everything the child writes to its
	// standard output. It should not block.
	Stdout io.Writer
	// Stderr, when set, also receives everything the child writes to its
	// standard error (unset: stderr goes to the tail only). It should not
	// block.
	Stderr io.Writer
	// WaitDelay (0: DefaultWaitDelay); see DefaultWaitDelay.
	WaitDelay time.Duration
	// Clock measures Took (nil: the wall clock). The timeout and
	// WaitDelay are real time whatever it is: a child lives in the real
	// world.
	Clock clock.Clock
}

// Result is how a run ended.
type Result struct {
	// ExitCode is the command's exit status; -1 when it did not exit by
	// itself (killed, timed out, never started).
	ExitCode int
	// Output is the tail of stdout and stderr, interleaved as written,
	// trimmed of surrounding white space; at most OutputCap bytes.
	Output string
	// Dropped is how many bytes of output were not kept.
	Dropped int64
	// TimedOut is true when the run was killed at its Timeout.
	TimedOut bool
	// Took is the run's duration, by Clock.
	Took time.Duration
	// Err is nil when the command exited 0. Otherwise it says what
	// happened (exit status, signal, timeout, could not start) followed
	// by the output's tail; it wraps ErrTimeout, ErrNoDir, the caller's
	// context error, or the *exec.ExitError.
	Err error
}

// Run runs c and waits for it, however it ends. ctx cancels the run (the
// group is killed, the Result says so).
func Run(ctx context.Context, c Command) Result {
	clk := c.Clock
	if clk == nil {
		clk = clock.Real{}
	}
	start := clk.Now()
	res := run(ctx, c)
	res.Took = clk.Now().Sub(start)
	return res
}

func run(ctx context.Context, c Command) Result {
	name, args, err := c.program()
	if err != nil {
		return Result{ExitCode: -1, Err: err}
	}
	if c.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeoutCause(ctx, c.Timeout, ErrTimeout)
		defer cancel()
	}
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = c.Dir
	cmd.Env = c.Env
	cmd.Stdin = c.Stdin
	if cmd.Stdin == nil {
		cmd.Stdin = bytes.NewReader(nil)
	}
	out := &Tail{Max: c.OutputCap}
	pipes, err := attach(cmd, c, out)
	if err != nil {
		return Result{ExitCode: -1, Err: fmt.Errorf("could not start: %w", err)}
	}
	cmd.Cancel = func() error { return killGroup(cmd) }
	wait := cmd.WaitDelay

	err = cmd.Start()
	pipes.closeWriters() // the child holds its own copies
	if err != nil {
		pipes.drain(0)
		return Result{ExitCode: -1, Err: startError(c, err)}
	}
	err = cmd.Wait()
	// The leader is gone; what it left in its group goes with it, and
	// with it (usually) the last writers of the pipes.
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	pipes.drain(wait)

	res := Result{ExitCode: cmd.ProcessState.ExitCode(), Output: strings.TrimSpace(out.String()), Dropped: out.Dropped()}
	if ctx.Err() != nil {
		res.ExitCode = -1
	}
	if errors.Is(context.Cause(ctx), ErrTimeout) {
		res.TimedOut = true
	}
	res.Err = runError(ctx, c, err, res)
	return res
}

// program is what c runs: the shell with its line, or Argv.
func (c Command) program() (string, []string, error) {
	switch {
	case c.Line != "":
		if c.Shell == "" {
			return "/bin/sh", []string{"-c", c.Line}, nil
		}
		return c.Shell, []string{"-c", c.Line}, nil
	case len(c.Argv) > 0 && c.Argv[0] != "":
		return c.Argv[0], c.Argv[1:], nil
	}
	return "", nil, errors.New("supervise: no command to run (empty command line)")
}

// attach gives cmd its output pipes (into out, and the Command's own
// writers), its process group and Pdeathsig, and its WaitDelay.
func attach(cmd *exec.Cmd, c Command, out *Tail) (*pipes, error) {
	sinks := []io.Writer{out}
	if c.Stdout != nil || c.Stderr != nil {
		o, e := io.Writer(out), io.Writer(out)
		if c.Stdout != nil {
			o = io.MultiWriter(out, c.Stdout)
		}
		if c.Stderr != nil {
			e = io.MultiWriter(out, c.Stderr)
		}
		sinks = []io.Writer{o, e}
	}
	p, err := newPipes(sinks)
	if err != nil {
		return nil, err
	}
	cmd.Stdout, cmd.Stderr = p.w[0], p.w[len(p.w)-1]
	cmd.SysProcAttr = procAttr()
	cmd.WaitDelay = c.WaitDelay
	if cmd.WaitDelay <= 0 {
		cmd.WaitDelay = DefaultWaitDelay
	}
	return p, nil
}

// killGroup kills the child's whole process group.
func killGroup(cmd *exec.Cmd) error {
	if err := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); err != nil {
		return cmd.Process.Kill()
	}
	return nil
}

// runError is the Result's error: nil for a clean exit 0.
func runError(ctx context.Context, c Command, err error, res Result) error {
	var what error
	switch {
	case res.TimedOut:
		what = timeoutError(c.Timeout)
	case ctx.Err() != nil:
		what = fmt.Errorf("stopped: %w", context.Cause(ctx))
	case err == nil:
		return nil
	default:
		what = err
	}
	if res.Output == "" {
		return what
	}
	return fmt.Errorf("%w: %s", what, res.Output)
}

// timeoutError reads "killed after its timeout 2m0s" and is ErrTimeout.
type timeoutError time.Duration

func (e timeoutError) Error() string {
	return fmt.Sprintf("killed after its timeout %s", time.Duration(e))
}

func (e timeoutError) Is(target error) bool { return target == ErrTimeout }

// startError says why the command could not start, in the operator's
// terms where it can.
func startError(c Command, err error) error {
	if c.Dir != "" {
		if _, serr := os.Stat(c.Dir); errors.Is(serr, fs.ErrNotExist) {
			return fmt.Errorf("%w: %s (was it moved or deleted?)", ErrNoDir, c.Dir)
		}
	}
	return fmt.Errorf("could not start: %w", err)
}
