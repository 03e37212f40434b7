package main

import (
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/wakewheel/wakewheel/api"
)

var crashIterations = flag.Int("crash-iterations", 50, "SIGKILLs in TestCrashMixedWorkload")

// TestCrashMixedWorkload SIGKILLs a real daemon at random points of a mixed
// workload (synced pushes, written-behind extends, synced cancels), restarts
// it each time, and checks after every restart:
//   - no synced deadline is lost: each acknowledged synced reminder that was
//     not cancelled fires, exactly once over the whole run;
//   - deadlines overdue at a restart fire in due order;
//   - the runner never wedges: a probe reminder fires within 5 s.
func TestCrashMixedWorkload(t *testing.T) {
	if testing.Short() {
		t.Skip("crash test is not short")
	}
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 0))
	h := newHome(t)
	ctx := context.Background()

	var mu sync.Mutex
	synced := map[string]time.Time{} // acknowledged synced pushes → due
	cancelled := map[string]bool{}   // synced cancels sent: one cut short by the kill may or may not have landed
	acked := 0                       // synced cancels acknowledged

	// Fire records are read after every restart: the history is bounded, so
	// counting them only at the end would miss the oldest.
	count := map[string]int{}
	var lastSeq uint64
	for iter := 0; iter < *crashIterations; iter++ {
		starting := time.Now()
		d := h.start()
		c := h.client()
		lastSeq = checkFires(t, c, lastSeq, starting, count)
		probe(t, c, fmt.Sprintf("probe-%d", iter))

		stop := make(chan struct{})
		var wg sync.WaitGroup
		for w := range 3 {
			wg.Add(1)
			go func(w int) {
				defer wg.Done()
				for j := 0; ; j++ {
					select {
					case <-stop:
						return
					default:
					}
					name := fmt.Sprintf("s-%d-%d-%d", iter, w, j)
					switch j % 4 {
					case 0, 1: // synced push, due soon or during the coming downtime
						res, err := c.Remind(ctx, api.ReminderRequest{Name: name, In: fmt.Sprintf("%dms", 20+j%7*60), Sync: true})
						if err == nil && res.Synced {
							mu.Lock()
							synced[res.Key] = *res.At
							mu.Unlock()
						}
					case 2: // written-behind extend: may be lost, must never fire twice
						c.Remind(ctx, api.ReminderRequest{Name: fmt.Sprintf("burst-%d", w), Window: "30ms", Cap: "200ms"})
					case 3: // synced cancel of an earlier synced push
						victim := fmt.Sprintf("s-%d-%d-%d", iter, w, j-3)
						mu.Lock()
						cancelled[api.ReminderPrefix+victim] = true
						mu.Unlock()
						res, err := c.CancelReminder(ctx, victim, true)
						if err == nil && res.Synced && res.Changed {
							mu.Lock()
							acked++
							mu.Unlock()
						}
					}
				}
			}(w)
		}
		time.Sleep(time.Duration(20+rng.IntN(300)) * time.Millisecond)
		d.kill()
		close(stop)
		wg.Wait()
		time.Sleep(time.Duration(rng.IntN(300)) * time.Millisecond) // downtime
	}

	// Final restart: everything acknowledged must have fired, once.
	starting := time.Now()
	d := h.start()
	defer d.stop(t)
	c := h.client()
	var latest time.Time
	for _, at := range synced {
		latest = maxT(latest, at)
	}
	time.Sleep(time.Until(latest) + 300*time.Millisecond)
	checkFires(t, c, lastSeq, starting, count)

	lost, twice := 0, 0
	for key := range synced {
		if cancelled[key] {
			continue
		}
		if count[key] == 0 {
			lost++
			t.Errorf("synced reminder %s never fired", key)
		}
	}
	for key, n := range count {
		if n > 1 && key[:len(api.ReminderPrefix)+1] == api.ReminderPrefix+"s" {
			twice++
			t.Errorf("%s fired %d times", key, n)
		}
	}
	fired := 0
	for _, n := range count {
		fired += n
	}
	t.Logf("%d SIGKILLs; %d synced reminders acknowledged, %d synced cancels; lost %d, fired twice %d; %d fires",
		*crashIterations, len(synced), acked, lost, twice, fired)
	if len(synced) < *crashIterations {
		t.Fatalf("only %d synced reminders were acknowledged: the workload did not run", len(synced))
	}
}

// checkFires reads the fire records after seq, counts the done ones, and
// checks that the deadlines that were overdue at the restart fired in due
// order.
// The catch-up rule is checked on the fires of the new process that were
// already overdue when it started: those must come in due order. (A fire of
// the killed process is not catch-up: on a loaded machine a reminder set
// "in 20ms" can reach the wheel after a later one fired, and rightly fires
// at once.)
func checkFires(t *testing.T, c *api.Client, after uint64, starting time.Time, count map[string]int) uint64 {
	t.Helper()
	time.Sleep(50 * time.Millisecond)
	fires, err := c.Fires(context.Background(), after, 100000)
	if err != nil {
		t.Fatal(err)
	}
	if len(fires) > 0 && fires[0].Seq != after+1 {
		t.Fatalf("fire records %d..%d were trimmed before they were read: the workload outran the fire history", after+1, fires[0].Seq-1)
	}
	var prev time.Time
	for _, f := range fires {
		if f.Outcome == "done" {
			count[f.Key]++
		}
		if f.At.Before(starting) && !f.Fired.Before(starting) {
			if f.At.Before(prev) {
				t.Errorf("catch-up out of due order: %s due %s after one due %s", f.Key, f.At, prev)
			}
			prev = f.At
		}
		after = max(after, f.Seq)
	}
	return after
}

// probe proves the runner is not wedged: a fresh reminder fires promptly.
func probe(t *testing.T, c *api.Client, name string) {
	t.Helper()
	ctx := context.Background()
	if _, err := c.Remind(ctx, api.ReminderRequest{Name: name, In: "1ms"}); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		ds, err := c.Deadlines(ctx, api.ReminderPrefix+name)
		if err != nil {
			t.Fatal(err)
		}
		if len(ds) == 0 {
			st, err := c.Status(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if st.Waiting == 0 {
				return
			}
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatalf("runner wedged: probe %s did not fire within 5s", name)
}

func maxT(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}
