package testgit

import (
	"bytes"
	"os/exec"
	"testing"

	"github.com/wakewheel/wakewheel/internal/gitenv"
)

// Run runs git in dir with args and returns its stdout; a failure fails tb
// with git's stderr.
func Run(tb testing.TB, dir string, args ...string) []byte {
	tb.Helper()
	full := append([]string{"-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false",
		"-c", "init.defaultBranch=main", "-C", dir}, args...)
	cmd := exec.Command("git", full...)
	cmd.Env = gitenv.Env()
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		tb.Fatalf("git %v: %v: %s", args, err, errb.Bytes())
	}
	return out.Bytes()
}
