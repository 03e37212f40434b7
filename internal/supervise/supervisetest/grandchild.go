package supervisetest

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/wakewheel/wakewheel/internal/supervise"
)

// wait bounds every wait of the fixture: generous, the box may be loaded.
const wait = 10 * time.Second

// Grandchild returns a shell command line that starts a grandchild
// sleeping forever, writes the grandchild's pid to a file and waits for
// it; pid waits for the line to have written the pid and returns it.
func Grandchild(t testing.TB) (line string, pid func() int) {
	t.Helper()
	file := filepath.Join(t.TempDir(), "pid")
	return "sleep 100000 & echo $! > " + file + "; wait", func() int {
		t.Helper()
		deadline := time.Now().Add(wait)
		for {
			b, _ := os.ReadFile(file)
			if n, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil {
				return n
			}
			if time.Now().After(deadline) {
				t.Fatalf("the grandchild's pid was not written within %s", wait)
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
}

// RequireGone fails t unless process pid is gone (or a zombie waiting for
// its reaper) within the fixture's wait.
func RequireGone(t testing.TB, pid int) {
	t.Helper()
	deadline := time.Now().Add(wait)
	for supervise.Alive(pid) {
		if time.Now().After(deadline) {
			t.Fatalf("process %d still alive %s after its run ended", pid, wait)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
