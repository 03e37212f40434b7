package detectors

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
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

// gitEnv is the environment of every git child: the process environment
// without the variables that would point git at another repository, index or
// work tree (a daemon started from a git hook inherits GIT_DIR), plus
// GIT_OPTIONAL_LOCKS=0 so that no read ever takes index.lock.
var gitEnv = sync.OnceValue(func() []string {
	drop := map[string]bool{
		"GIT_DIR": true, "GIT_WORK_TREE": true, "GIT_INDEX_FILE": true,
		"GIT_OBJECT_DIRECTORY": true, "GIT_ALTERNATE_OBJECT_DIRECTORIES": true,
		"GIT_COMMON_DIR": true, "GIT_PREFIX": true, "GIT_NAMESPACE": true,
		"GIT_OPTIONAL_LOCKS": true, "GIT_CONFIG_PARAMETERS": true,
		"GIT_CONFIG_COUNT": true, "GIT_EXTERNAL_DIFF": true,
	}
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if drop[k] {
			continue
		}
		env = append(env, kv)
	}
	return append(env, "GIT_OPTIONAL_LOCKS=0")
})

// maxStderr bounds the stderr kept for an error message.
const maxStderr = 8 << 10

// runGit runs `git --no-optional-locks -C dir -c core.quotePath=false args...`
// and returns its stdout. sizeHint pre-sizes the stdout buffer.
func runGit(ctx context.Context, dir string, sizeHint int, args ...string) ([]byte, error) {
	full := make([]string, 0, len(args)+5)
	full = append(full, "--no-optional-locks", "-C", dir, "-c", "core.quotePath=false")
	full = append(full, args...)
	cmd := exec.CommandContext(ctx, "git", full...)
	cmd.Env = gitEnv()
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
