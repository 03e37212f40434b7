package main

import (
	"encoding/json"
	"os"
	"runtime"
	"strings"
	"testing"
)

// On Linux the engine's loop sleeps on a timerfd (it wakes through
// the network poller, not behind a collector's mark workers): the daemon
// logs the kind of the timer its loop made.
func TestDaemonLoopSleepsOnTimerfd(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the poller sleeper is a Linux timerfd; elsewhere the loop sleeps on the runtime timer")
	}
	h := newHome(t)
	d := h.start()
	if out, err := h.run("remind", "soon", "--in", "1h"); err != nil {
		t.Fatalf("remind: %v\n%s", err, out)
	}
	d.stop(t)
	raw, err := os.ReadFile(d.log.Name())
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, line := range strings.Split(string(raw), "\n") {
		var ev struct{ Message, Timer, Error string }
		if json.Unmarshal([]byte(line), &ev) == nil && strings.HasPrefix(ev.Message, "loop timer") {
			kinds = append(kinds, ev.Timer+" "+ev.Error)
		}
	}
	if len(kinds) != 1 || kinds[0] != "timerfd " {
		t.Fatalf("loop timer log lines: %q, want one naming timerfd\n%s", kinds, raw)
	}
}
