package wakes

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/wakewheel/wakewheel/internal/supervise"
)

// grandchild is a command line that starts a grandchild sleeping forever,
// writes its pid to file and waits for it.
func grandchild(file string) string {
	return "sleep 100000 & echo $! > " + file + "; wait"
}

func pidIn(t *testing.T, file string) int {
	t.Helper()
	var pid int
	waitFor(t, "the grandchild's pid", func() bool {
		b, _ := os.ReadFile(file)
		var err error
		pid, err = strconv.Atoi(strings.TrimSpace(string(b)))
		return err == nil
	})
	return pid
}

func requireDead(t *testing.T, pid int) {
	t.Helper()
	waitFor(t, "the grandchild gone", func() bool { return !supervise.Alive(pid) })
}

// A wake hook that leaves a grandchild sleeping forever: at the hook's
// timeout the whole group dies, and the failure is alerted as a timeout.
func TestWakeHookTimeoutKillsItsGrandchild(t *testing.T) {
	file := filepath.Join(t.TempDir(), "pid")
	r := newRig(t, fastPolicies())
	r.opts.Hook = func(string) string { return grandchild(file) }
	r.opts.HookTimeout = 300 * time.Millisecond
	got := make(chan string, 16)
	r.opts.OnFailure = func(msg string) { got <- msg }
	r.start()
	defer func() { r.stop(false) }()
	ctx := ctxT(t)
	r.svc.OpenLane(ctx, "dev")
	r.svc.Post(ctx, human("dev", "a", "x"), false)
	pid := pidIn(t, file)
	select {
	case msg := <-got:
		if !strings.Contains(msg, "killed after its timeout 300ms") {
			t.Errorf("failure %q, want the timeout named", msg)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the hook's timeout was not reported")
	}
	requireDead(t, pid)
}
