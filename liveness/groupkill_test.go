package liveness

import (
	"testing"
	"time"

	"github.com/rs/zerolog"
	"github.com/wakewheel/wakewheel/internal/supervise/supervisetest"
)

// The monitor's alarm command that leaves a grandchild sleeping forever:
// at its timeout the whole group dies, and the delivery returns.
func TestAlarmCommandTimeoutKillsItsGrandchild(t *testing.T) {
	line, grandchild := supervisetest.Grandchild(t)
	m, err := NewMonitor(MonitorOptions{Period: time.Minute, Grace: time.Minute, AlarmCmd: line,
		Timeout: 300 * time.Millisecond, Logger: zerolog.Nop()})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = m.runCommand(Alarm{Host: "web1", Reason: "absent", Message: "no beacon"})
	}()
	pid := grandchild()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the alarm command outlived its timeout")
	}
	supervisetest.RequireGone(t, pid)
}
