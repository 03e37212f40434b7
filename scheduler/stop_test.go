package scheduler_test

import (
	"context"
	"testing"
	"time"

	"github.com/wakewheel/wakewheel/internal/clock"
	"github.com/wakewheel/wakewheel/internal/enginetest"
	"github.com/wakewheel/wakewheel/scheduler"
)

// An action that asks the loop for something on its way out, after Stop
// cancelled it (a root's detection records an alert through Do), is
// answered: Stop returns, and what it asked for ran.
func TestStopServesTheRunningActionsLastRequest(t *testing.T) {
	clk := clock.NewFake(epoch)
	var r *scheduler.Runner
	started, asked := make(chan struct{}), make(chan error, 1)
	ran := false
	// Not startRunner: its cleanup would Stop again, and a Stop that hangs
	// would hang the package rather than fail this test.
	_, eng := enginetest.Mem(t, scheduler.Options{}, clk.Now())
	eng.Register("slow", func(ctx context.Context, _ scheduler.Firing) scheduler.Outcome {
		close(started)
		<-ctx.Done()
		asked <- r.Do(context.Background(), func(*scheduler.Engine, time.Time) { ran = true })
		return scheduler.Succeeded()
	})
	r = scheduler.Start(eng, clk)
	push(t, r, "s", "slow", epoch)
	select {
	case <-started:
	case <-time.After(10 * time.Second):
		t.Fatal("the action did not start")
	}
	stopped := make(chan struct{})
	go func() { r.Stop(); close(stopped) }()
	select {
	case <-stopped:
	case <-time.After(10 * time.Second):
		t.Fatal("Stop did not return: the loop never answered the action's request")
	}
	if err := <-asked; err != nil || !ran {
		t.Fatalf("the action's request: %v, ran %v; want it served", err, ran)
	}
}
