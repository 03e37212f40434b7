package scheduler_test

import (
	"context"
	"testing"
	"time"

	"github.com/rs/zerolog"
	"github.com/syndtr/goleveldb/leveldb/storage"

	"github.com/wakewheel/wakewheel"
	"github.com/wakewheel/wakewheel/deadlines"
	"github.com/wakewheel/wakewheel/internal/clock"
	"github.com/wakewheel/wakewheel/scheduler"
	"github.com/wakewheel/wakewheel/store"
)

// heldStore is a store whose fire records wait at a gate: the record of a
// finished run is still being written for as long as the test holds it.
type heldStore struct {
	*store.DB
	entered chan string   // the first record's key of a batch, as its write begins
	gate    chan struct{} // closed: the records are written
}

func (s *heldStore) CompleteAll(done []wakewheel.Finished) error {
	s.entered <- done[0].Key
	<-s.gate
	return s.DB.CompleteAll(done)
}

// A key pushed again while the record retiring its last run is being
// written (off the loop) waits for that record: the new deadline is in the
// store afterwards, not deleted by the older record, and the run is
// recorded once. Stop returns with every record written.
func TestRepushWaitsForTheRecordRetiringTheKey(t *testing.T) {
	db, err := store.OpenStorage(storage.NewMemStorage(), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	held := &heldStore{DB: db, entered: make(chan string, 1), gate: make(chan struct{})}
	eng, err := scheduler.NewEngine(held, scheduler.Options{Logger: zerolog.Nop()}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	eng.Register("once", func(context.Context, scheduler.Firing) scheduler.Outcome { return scheduler.Succeeded() })
	r := scheduler.Start(eng, clock.Real{})
	stopped := false
	t.Cleanup(func() {
		if !stopped {
			close(held.gate)
			r.Stop()
		}
	})
	push(t, r, "k", "once", time.Now())
	if key := <-held.entered; key != "k" {
		t.Fatalf("record of %q, want k", key)
	}
	later := time.Now().Add(time.Hour).Truncate(time.Millisecond)
	pushed := make(chan struct{})
	go func() {
		defer close(pushed)
		push(t, r, "k", "once", later)
	}()
	select {
	case <-pushed:
		t.Fatal("the push returned while the record retiring the key's run was still being written")
	case <-time.After(50 * time.Millisecond): // the push waits whether or not it got this far
	}
	close(held.gate)
	<-pushed
	stopped = true
	r.Stop()
	if err := db.Flush(); err != nil {
		t.Fatal(err)
	}
	page, _, err := db.DeadlinePage("", "", 10)
	if err != nil || len(page) != 1 || page[0].Key != "k" || !page[0].At.Equal(later) {
		t.Fatalf("stored deadlines %v (err %v), want k at %v", page, err, later)
	}
	fires, err := db.Fires(0, 0)
	if err != nil || len(fires) != 1 || fires[0].Key != "k" {
		t.Fatalf("fires %v (err %v), want the one run of k", fires, err)
	}
}

// Many runs finishing while their records are written behind are all
// recorded, in the order they finished, by the time Stop returns.
func TestStopWritesEveryRecordHandedOver(t *testing.T) {
	db, err := store.OpenStorage(storage.NewMemStorage(), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	eng, err := scheduler.NewEngine(db, scheduler.Options{Logger: zerolog.Nop()}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	const n = 300
	ran := make(chan struct{}, n)
	eng.Register("r", func(context.Context, scheduler.Firing) scheduler.Outcome {
		ran <- struct{}{}
		return scheduler.Succeeded()
	})
	r := scheduler.Start(eng, clock.Real{})
	now := time.Now()
	if err := r.Do(context.Background(), func(e *scheduler.Engine, _ time.Time) {
		for i := range n {
			if _, err := e.Apply(now, deadlines.Mutation{Op: deadlines.OpPush, Key: keyOf(i), Kind: "r", At: now.Add(time.Duration(i) * time.Microsecond)}); err != nil {
				t.Error(err)
			}
		}
	}); err != nil {
		t.Fatal(err)
	}
	for range n {
		<-ran
	}
	r.Stop()
	fires, err := db.Fires(0, 0)
	if err != nil || len(fires) != n {
		t.Fatalf("%d fires (err %v), want %d", len(fires), err, n)
	}
	for i, f := range fires {
		if f.Key != keyOf(i) {
			t.Fatalf("fire %d is %s, want %s (the order the runs finished)", i, f.Key, keyOf(i))
		}
	}
	if page, _, err := db.DeadlinePage("", "", n); err != nil || len(page) != 0 {
		t.Fatalf("%d deadlines stored after their runs (err %v)", len(page), err)
	}
}

func keyOf(i int) string {
	return "r/" + string(rune('a'+i/26/26%26)) + string(rune('a'+i/26%26)) + string(rune('a'+i%26))
}

// While the store holds its fire records back (LevelDB throttling writes
// in a long drain), the loop starts no run whose record would have to
// wait, and goes on answering: a Do returns at once. Once the records are
// written, every run is.
func TestLoopAnswersWhileRecordsWait(t *testing.T) {
	db, err := store.OpenStorage(storage.NewMemStorage(), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	const n = 1000
	held := &heldStore{DB: db, entered: make(chan string, n), gate: make(chan struct{})}
	eng, err := scheduler.NewEngine(held, scheduler.Options{Logger: zerolog.Nop()}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	ran := make(chan struct{}, n)
	eng.Register("r", func(context.Context, scheduler.Firing) scheduler.Outcome {
		ran <- struct{}{}
		return scheduler.Succeeded()
	})
	r := scheduler.Start(eng, clock.Real{})
	released := false
	t.Cleanup(func() { // on a failure too: the writer must go on for Stop to return
		if !released {
			close(held.gate)
			go func() {
				for range held.entered {
				}
			}()
			r.Stop()
		}
	})
	now := time.Now()
	if err := r.Do(context.Background(), func(e *scheduler.Engine, _ time.Time) {
		for i := range n {
			if _, err := e.Apply(now, deadlines.Mutation{Op: deadlines.OpPush, Key: keyOf(i), Kind: "r", At: now}); err != nil {
				t.Error(err)
			}
		}
	}); err != nil {
		t.Fatal(err)
	}
	<-held.entered // the first record is held; the runs go on until its queue is full
	deadline := time.Now().Add(5 * time.Second)
	for len(ran) < 200 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	time.Sleep(100 * time.Millisecond) // any run the loop would still start
	started := len(ran)
	answered := make(chan error, 1)
	go func() { // a request taken by a loop stuck on the writer waits with it
		for range 20 {
			if err := r.Do(context.Background(), func(*scheduler.Engine, time.Time) {}); err != nil {
				answered <- err
				return
			}
		}
		answered <- nil
	}()
	select {
	case err := <-answered:
		if err != nil {
			t.Fatalf("a request while the records wait: %v", err)
		}
	case <-time.After(2 * time.Second):
		t.Fatal("the loop did not answer while the records waited")
	}
	if started > 300 {
		t.Fatalf("%d runs started while their records could not be written", started)
	}
	released = true
	close(held.gate)
	for range n {
		<-ran
	}
	r.Stop()
	fires, err := db.Fires(0, 0)
	if err != nil || len(fires) != n {
		t.Fatalf("%d fires recorded (err %v), want %d", len(fires), err, n)
	}
}
