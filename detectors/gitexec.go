package detectors

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"

	"github.com/wakewheel/wakewheel/internal/gitenv"
)

// ErrGit is wrapped by every error of a git command that ran and failed.
var ErrGit = errors.New("detectors: git failed")

// GitError is a failed git command: its arguments (after the fixed
// `git --no-optional-locks -C <dir>` prefix), its exit code (-1 if it did
// not exit normally) and what it wrote to stderr.
type GitError struct {
	Dir    string
	Args   []string
	Code   int
	Stderr string
	Err    error // the error from os/exec
}

func (e *GitError) Error() string {
	msg := strings.TrimSpace(e.Stderr)
	if msg == "" {
		msg = e.Err.Error()
	}
	return fmt.Sprintf("detectors: git %s in %s: exit %d: %s", strings.Join(e.Args, " "), e.Dir, e.Code, msg)
}

// Unwrap lets errors.Is match both ErrGit and the underlying exec error
// (for example context.Canceled when the context ended).
func (e *GitError) Unwrap() []error { return []error{ErrGit, e.Err} }

// maxStderr bounds the stderr kept for an error message.
const maxStderr = 8 << 10

// runGit runs `git --no-optional-locks -C dir -c core.quotePath=false args...`
// and returns its stdout. sizeHint pre-sizes the stdout buffer.
func runGit(ctx context.Context, dir string, sizeHint int, args ...string) ([]byte, error) {
	full := make([]string, 0, len(args)+5)
	full = append(full, "--no-optional-locks", "-C", dir, "-c", "core.quotePath=false")
	full = append(full, args...)
	cmd := exec.CommandContext(ctx, "git", full...)
	cmd.Env = gitenv.Env()
	var stdout bytes.Buffer
	if sizeHint > 0 {
		stdout.Grow(sizeHint)
	}
	stderr := &capped{max: maxStderr}
	cmd.Stdout = &stdout
	cmd.Stderr = stderr
	if err := cmd.Run(); err != nil {
		code := -1
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			code = exit.ExitCode()
		}
		if ctx.Err() != nil {
			err = fmt.Errorf("%w: %w", ctx.Err(), err)
		}
		return nil, &GitError{Dir: dir, Args: args, Code: code, Stderr: stderr.String(), Err: err}
	}
	return stdout.Bytes(), nil
}

// capped is a writer that keeps the first max bytes written to it.
type capped struct {
	buf bytes.Buffer
	max int
}

func (c *capped) Write(p []byte) (int, error) {
	if room := c.max - c.buf.Len(); room > 0 {
		if len(p) > room {
			c.buf.Write(p[:room])
		} else {
			c.buf.Write(p)
		}
	}
	return len(p), nil
}

func (c *capped) String() string { return c.buf.String() }
