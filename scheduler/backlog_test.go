package scheduler_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/rs/zerolog"
	"github.com/syndtr/goleveldb/leveldb/storage"
	"github.com/wakewheel/wakewheel/deadlines"
	"github.com/wakewheel/wakewheel/scheduler"
	"github.com/wakewheel/wakewheel/store"
)

// TestBacklogWaitsInTheWheel: 1,000 deadlines that fall due together
// enter the queue 256 at a time; the rest stay pending in the wheel, the
// engine asks for no wake while the queue is full, and every one runs once,
// in due order, as runs finish and make room. After a restart in the
// middle, what was queued and not run is pending again and runs.
func TestBacklogWaitsInTheWheel(t *testing.T) {
	mem := storage.NewMemStorage()
	open := func(now time.Time) (*store.DB, *scheduler.Engine, *[]string) {
		db, err := store.OpenStorage(mem, store.Options{})
		if err != nil {
			t.Fatal(err)
		}
		eng, err := scheduler.NewEngine(db, scheduler.Options{Tick: time.Millisecond, Logger: zerolog.Nop()}, now)
		if err != nil {
			t.Fatal(err)
		}
		var ran []string
		eng.Register("k", func(ctx context.Context, f scheduler.Firing) scheduler.Outcome {
			ran = append(ran, f.Deadline.Key)
			return scheduler.Succeeded()
		})
		return db, eng, &ran
	}
	db, eng, ran := open(epoch)
	var want []string
	for i := range 1000 {
		key := fmt.Sprintf("k/%04d", (i*7919)%1000)
		at := epoch.Add(time.Duration(1+i%100) * time.Second) // ten a second: ties broken by key
		if _, err := eng.Apply(epoch, deadlines.Mutation{Op: deadlines.OpPush, Key: key, Kind: "k", At: at}); err != nil {
			t.Fatal(err)
		}
		want = append(want, fmt.Sprintf("%03d %s", 1+i%100, key))
	}
	slices.Sort(want)
	for i, w := range want {
		want[i] = w[4:]
	}
	now := epoch.Add(time.Hour)
	if n := eng.Due(now); n != 256 || eng.Waiting() != 256 || eng.Len() != 744 {
		t.Fatalf("Due moved %d: %d waiting, %d pending; want 256, 256, 744", n, eng.Waiting(), eng.Len())
	}
	if at, ok := eng.Wake(); ok {
		t.Fatalf("Wake %v with a full queue: the worker's result wakes the runner", at)
	}
	step := func(eng *scheduler.Engine) bool {
		eng.Due(now)
		job, ok := eng.NextJob(now)
		if ok {
			eng.Finish(now, job, eng.Run(context.Background(), job))
		}
		return ok
	}
	for range 500 {
		step(eng)
	}
	if err := db.Close(); err != nil { // a restart: 500 ran, the queue's 256 had not
		t.Fatal(err)
	}
	db, eng, ran2 := open(now)
	defer db.Close()
	if eng.Len() != 500 || eng.Overdue() != 500 {
		t.Fatalf("after the restart %d pending, %d overdue; want 500, 500", eng.Len(), eng.Overdue())
	}
	for step(eng) {
	}
	got := append(*ran, *ran2...)
	if !slices.Equal(got, want) {
		t.Fatalf("ran %d runs, not each deadline once in due order", len(got))
	}
	if eng.Len() != 0 || eng.Waiting() != 0 {
		t.Fatalf("%d pending, %d waiting after the drain", eng.Len(), eng.Waiting())
	}
}

// A wheel that held 70,000 deadlines and holds 100 once the rest are
// cancelled is built anew on the engine's next turn, which says so
// (Options.Shrunk) once, and the 100 are as they were.
func TestDueCompactsAWheelLeftSmall(t *testing.T) {
	db, err := store.OpenStorage(storage.NewMemStorage(), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	shrunk := 0
	eng, err := scheduler.NewEngine(db, scheduler.Options{Logger: zerolog.Nop(), Shrunk: func() { shrunk++ }}, epoch)
	if err != nil {
		t.Fatal(err)
	}
	eng.Register("k", func(context.Context, scheduler.Firing) scheduler.Outcome { return scheduler.Succeeded() })
	const n, kept = 70_000, 100
	for i := range n {
		if _, err := eng.Apply(epoch, deadlines.Mutation{Op: deadlines.OpPush, Key: fmt.Sprintf("k/%05d", i), Kind: "k", At: epoch.Add(time.Hour + time.Duration(i)*time.Second)}); err != nil {
			t.Fatal(err)
		}
	}
	eng.Due(epoch)
	for i := kept; i < n; i++ {
		if _, err := eng.Apply(epoch, deadlines.Mutation{Op: deadlines.OpCancel, Key: fmt.Sprintf("k/%05d", i)}); err != nil {
			t.Fatal(err)
		}
	}
	if shrunk != 0 {
		t.Fatalf("Shrunk called %d times before a turn", shrunk)
	}
	eng.Due(epoch)
	eng.Due(epoch)
	if shrunk != 1 {
		t.Fatalf("Shrunk called %d times over two turns with %d of %d left, want once", shrunk, eng.Len(), n)
	}
	for i := range kept {
		d, ok := eng.Get(fmt.Sprintf("k/%05d", i))
		if !ok || !d.At.Equal(epoch.Add(time.Hour+time.Duration(i)*time.Second)) {
			t.Fatalf("k/%05d after the rebuild: %+v %v", i, d, ok)
		}
	}
	if eng.Len() != kept {
		t.Fatalf("Len %d after the rebuild, want %d", eng.Len(), kept)
	}
}
