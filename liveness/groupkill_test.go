package liveness

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"
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

// The monitor's alarm command that leaves a grandchild sleeping forever:
// at its timeout the whole group dies, and raise returns.
func TestAlarmCommandTimeoutKillsItsGrandchild(t *testing.T) {
	file := filepath.Join(t.TempDir(), "pid")
	m, err := NewMonitor(MonitorOptions{Period: time.Minute, Grace: time.Minute, AlarmCmd: grandchild(file),
		Timeout: 300 * time.Millisecond, Logger: zerolog.Nop()})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		m.raise(Alarm{Host: "web1", Reason: "absent", Message: "no beacon"})
	}()
	pid := pidIn(t, file)
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the alarm command outlived its timeout")
	}
	requireDead(t, pid)
}
