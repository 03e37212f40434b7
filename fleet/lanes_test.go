package fleet

import (
	"context"
	"testing"
	"time"

	"github.com/wakewheel/wakewheel/internal/enginetest"
	"github.com/wakewheel/wakewheel/scheduler"
)

// engineRunner runs fn on the test's goroutine, as the runner does on its
// worker, on an engine nothing else touches.
type engineRunner struct {
	eng *scheduler.Engine
	now time.Time
}

func (r engineRunner) Do(_ context.Context, fn func(e *scheduler.Engine, now time.Time)) error {
	fn(r.eng, r.now)
	return nil
}

// A lanes publish the engine refuses to arm is not left marked as armed:
// the next change arms it (it stayed marked, and no change was published
// again).
func TestALanesPublishTheEngineRefusedIsArmedByTheNextChange(t *testing.T) {
	b := startBroker(t)
	m := member(t, testOptions(b.URL(), "a"), newMemLocal(), t.TempDir(), nil)
	now := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	_, eng := enginetest.Mem(t, scheduler.Options{}, now)
	var r Runner = engineRunner{eng: eng, now: now}
	m.runner.Store(&r)

	m.LaneChanged("work.x") // no handler of LanesKind: the engine refuses the deadline
	if m.lanesArmed.Load() {
		t.Fatal("a lanes deadline the engine refused is marked armed")
	}
	eng.Register(LanesKind, m.LanesHandler())
	m.LaneChanged("work.x")
	d, ok := eng.Get(hostKey(LanesKind, "a"))
	if !ok || !m.lanesArmed.Load() {
		t.Fatalf("the next change did not arm the lanes publish (pending %v, armed %v)", ok, m.lanesArmed.Load())
	}
	if want := now.Add(m.opts.LanesCoalesce); !d.At.Equal(want) {
		t.Fatalf("the lanes publish is due at %s, want %s (one coalescing window on)", d.At, want)
	}
}
