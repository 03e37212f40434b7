package wakes

import (
	"strings"
	"testing"
	"time"

	"github.com/wakewheel/wakewheel/internal/supervise/supervisetest"
)

// A wake hook that leaves a grandchild sleeping forever: at the hook's
// timeout the whole group dies, and the failure is alerted as a timeout.
func TestWakeHookTimeoutKillsItsGrandchild(t *testing.T) {
	line, grandchild := supervisetest.Grandchild(t)
	r := newRig(t, fastPolicies())
	r.opts.Hook = func(string) string { return line }
	r.opts.HookTimeout = 300 * time.Millisecond
	got := make(chan string, 16)
	r.opts.OnFailure = func(msg string) { got <- msg }
	r.start()
	defer func() { r.stop(false) }()
	ctx := ctxT(t)
	r.svc.OpenLane(ctx, "dev")
	r.svc.Post(ctx, human("dev", "a", "x"), false)
	pid := grandchild()
	select {
	case msg := <-got:
		if !strings.Contains(msg, "killed after its timeout 300ms") {
			t.Errorf("failure %q, want the timeout named", msg)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the hook's timeout was not reported")
	}
	supervisetest.RequireGone(t, pid)
}
