package scheduler_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/rs/zerolog"
	"github.com/syndtr/goleveldb/leveldb/storage"
	"github.com/wakewheel/wakewheel/deadlines"
	"github.com/wakewheel/wakewheel/scheduler"
	"github.com/wakewheel/wakewheel/store"
)

// keysOf lists the keys seq yields, sorted.
func keysOf(seq func(func(deadlines.Deadline) bool)) []string {
	var out []string
	for d := range seq {
		out = append(out, d.Key+"="+d.Kind)
	}
	slices.Sort(out)
	return out
}

// OfKind yields exactly what a visit of every pending deadline filtered by
// kind yields, for indexed and unindexed kinds, through random pushes,
// extends, cancels, kind changes, fires with every outcome, and a reload.
func TestOfKindMatchesAFullVisit(t *testing.T) {
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 0))
	mem := storage.NewMemStorage()
	db, err := store.OpenStorage(mem, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	opts := scheduler.Options{Logger: zerolog.Nop(), Indexed: []string{"lease", "burst"}, RetryBase: time.Second}
	now := epoch
	eng, err := scheduler.NewEngine(db, opts, now)
	if err != nil {
		t.Fatal(err)
	}
	kinds := []string{"lease", "burst", "reminder"}
	outcomes := []scheduler.Outcome{scheduler.Succeeded(), scheduler.RetryLater(errors.New("again")), scheduler.YieldFor(time.Second)}
	register := func(e *scheduler.Engine) {
		for _, k := range kinds {
			e.Register(k, func(context.Context, scheduler.Firing) scheduler.Outcome { return outcomes[rng.IntN(len(outcomes))] })
		}
	}
	register(eng)
	check := func(step int) {
		t.Helper()
		for _, want := range [][]string{{"lease"}, {"burst", "lease"}, {"reminder"}, {"lease", "reminder"}} {
			got := keysOf(eng.OfKind(want...))
			full := keysOf(func(yield func(deadlines.Deadline) bool) {
				for d := range eng.All() {
					if slices.Contains(want, d.Kind) && !yield(d) {
						return
					}
				}
			})
			if !slices.Equal(got, full) {
				t.Fatalf("step %d, kinds %v: OfKind %v, a full visit %v (seed %d)", step, want, got, full, seed)
			}
		}
	}
	for step := range 3000 {
		key := fmt.Sprintf("k%02d", rng.IntN(40))
		kind := kinds[rng.IntN(len(kinds))]
		switch rng.IntN(5) {
		case 0, 1:
			eng.Apply(now, deadlines.Mutation{Op: deadlines.OpPush, Key: key, Kind: kind, At: now.Add(time.Duration(rng.IntN(3000)) * time.Millisecond)})
		case 2:
			eng.Apply(now, deadlines.Mutation{Op: deadlines.OpExtend, Key: key, Kind: kind, Window: time.Second, Cap: 3 * time.Second})
		case 3:
			eng.Apply(now, deadlines.Mutation{Op: deadlines.OpCancel, Key: key})
		case 4:
			now = now.Add(time.Duration(rng.IntN(800)) * time.Millisecond)
			eng.Due(now)
			for {
				job, ok := eng.NextJob(now)
				if !ok {
					break
				}
				eng.Finish(now, job, eng.Run(context.Background(), job))
			}
		}
		check(step)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if db, err = store.OpenStorage(mem, store.Options{}); err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if eng, err = scheduler.NewEngine(db, opts, now); err != nil {
		t.Fatal(err)
	}
	check(-1) // after the reload
}

// OfKind of an indexed kind does not visit the other pending deadlines:
// among 200,000 reminders, listing 3 leases costs a small fraction of one
// visit of everything (a ratio measured in the same run).
func TestOfKindIsNotAFullVisit(t *testing.T) {
	db, err := store.OpenStorage(storage.NewMemStorage(), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	eng, err := scheduler.NewEngine(db, scheduler.Options{Logger: zerolog.Nop(), Indexed: []string{"lease"}}, epoch)
	if err != nil {
		t.Fatal(err)
	}
	eng.Register("lease", func(context.Context, scheduler.Firing) scheduler.Outcome { return scheduler.Succeeded() })
	eng.Register("reminder", func(context.Context, scheduler.Firing) scheduler.Outcome { return scheduler.Succeeded() })
	for i := range 200_000 {
		eng.Apply(epoch, deadlines.Mutation{Op: deadlines.OpPush, Key: fmt.Sprintf("reminder/r%06d", i), Kind: "reminder", At: epoch.Add(time.Hour)})
	}
	for i := range 3 {
		eng.Apply(epoch, deadlines.Mutation{Op: deadlines.OpPush, Key: fmt.Sprintf("lease/l%d", i), Kind: "lease", At: epoch.Add(time.Hour)})
	}
	timed := func(f func() int) (time.Duration, int) {
		best, n := time.Duration(1<<62), 0
		for range 5 {
			start := time.Now()
			n = f()
			best = min(best, time.Since(start))
		}
		return best, n
	}
	leases, n := timed(func() int { return len(keysOf(eng.OfKind("lease"))) })
	full, all := timed(func() int {
		n := 0
		for range eng.All() {
			n++
		}
		return n
	})
	t.Logf("3 leases by kind %v; a visit of all %d pending %v", leases, all, full)
	if n != 3 || all != 200_003 {
		t.Fatalf("listed %d leases of %d pending", n, all)
	}
	if leases*20 > full {
		t.Errorf("listing 3 leases took %v, a visit of everything %v: want under 1/20 of it", leases, full)
	}
}
