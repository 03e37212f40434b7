package scheduler_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/wakewheel/wakewheel/internal/clock"
	"github.com/wakewheel/wakewheel/scheduler"
)

// TestRealClockLateness fires deadlines at random horizons through a real
// Runner and, in the same run, the same horizons through time.AfterFunc. No
// deadline fires early; lateness percentiles are logged side by side.
func TestRealClockLateness(t *testing.T) {
	const n = 2000
	horizon := func(rng *rand.Rand) time.Duration { return time.Duration(1+rng.IntN(500)) * time.Millisecond }

	var mu sync.Mutex
	var wheelLate, runtimeLate []time.Duration
	var wg sync.WaitGroup
	wg.Add(2 * n)
	r, _ := startRunner(t, clock.Real{}, func(e *scheduler.Engine) {
		e.Register("probe", func(_ context.Context, f scheduler.Firing) scheduler.Outcome {
			late := time.Since(f.Deadline.At)
			mu.Lock()
			wheelLate = append(wheelLate, late)
			mu.Unlock()
			wg.Done()
			return scheduler.Succeeded()
		})
	})
	rng := rand.New(rand.NewPCG(1, 2))
	start := time.Now()
	for i := range n {
		at := start.Add(horizon(rng))
		push(t, r, fmt.Sprintf("p%d", i), "probe", at)
		time.AfterFunc(time.Until(at), func() {
			late := time.Since(at)
			mu.Lock()
			runtimeLate = append(runtimeLate, late)
			mu.Unlock()
			wg.Done()
		})
	}
	wg.Wait()
	early := 0
	for _, l := range wheelLate {
		if l < 0 {
			early++
		}
	}
	if early > 0 {
		t.Fatalf("%d of %d deadlines fired early", early, n)
	}
	p := func(ls []time.Duration, q float64) time.Duration {
		slices.Sort(ls)
		return ls[int(q*float64(len(ls)-1))]
	}
	t.Logf("real-clock lateness over %d deadlines (1-500ms): wheel p50 %v p99 %v max %v; time.AfterFunc p50 %v p99 %v max %v",
		n, p(wheelLate, .5), p(wheelLate, .99), p(wheelLate, 1), p(runtimeLate, .5), p(runtimeLate, .99), p(runtimeLate, 1))
}
