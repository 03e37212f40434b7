package wakes

import (
	"errors"
	"strings"
	"testing"
	"time"

	ob "github.com/wakewheel/wakewheel/obligations"
	"github.com/wakewheel/wakewheel/scheduler"
)

// A wait on a lane nobody opened is refused, and creates nothing.
func TestWaitOnAnUnknownLaneIsRefused(t *testing.T) {
	r := newRig(t, fastPolicies()).start()
	defer func() { r.stop(false) }()
	ctx := ctxT(t)
	if _, _, err := r.svc.Wait(ctx, "nosuch", "", "", time.Second); !errors.Is(err, ob.ErrUnknownLane) {
		t.Fatalf("wait on an unknown lane: %v, want ErrUnknownLane", err)
	}
	if ls, _ := r.svc.Lanes(ctx); len(ls) != 0 {
		t.Fatalf("the wait created %+v", ls)
	}
}

// Closing a lane removes its records from the store (a restart does not
// bring it back), wakes its waiters with the error, and is refused while
// work is unconsumed unless forced.
func TestCloseLane(t *testing.T) {
	r := newRig(t, fastPolicies()).start()
	defer func() { r.stop(false) }()
	ctx := ctxT(t)
	if _, err := r.svc.OpenLane(ctx, "dev"); err != nil {
		t.Fatal(err)
	}
	if _, err := r.svc.Post(ctx, human("dev", "a", "hello"), false); err != nil {
		t.Fatal(err)
	}
	if _, err := r.svc.CloseLane(ctx, "dev", false); !errors.Is(err, ob.ErrLaneBusy) {
		t.Fatalf("close with work unconsumed: %v, want ErrLaneBusy", err)
	}
	if _, err := r.svc.OpenLane(ctx, "idle"); err != nil {
		t.Fatal(err)
	}
	waited := make(chan error, 1)
	go func() {
		_, _, err := r.svc.Wait(ctx, "idle", "", "", 10*time.Second)
		waited <- err
	}()
	time.Sleep(50 * time.Millisecond)
	if _, err := r.svc.CloseLane(ctx, "idle", false); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-waited:
		if !errors.Is(err, ob.ErrUnknownLane) {
			t.Fatalf("the waiter of a closed lane got %v, want ErrUnknownLane", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the waiter of a closed lane was not woken")
	}
	was, err := r.svc.CloseLane(ctx, "dev", true)
	if err != nil || was.Counts.Total() != 1 {
		t.Fatalf("forced close: %+v %v", was, err)
	}
	r.restart()
	if ls, _ := r.svc.Lanes(ctx); len(ls) != 0 {
		t.Fatalf("closed lanes came back after a restart: %+v", ls)
	}
	n := 0
	r.db.Scan(RecordNS, "", func(string, []byte) error { n++; return nil })
	if n != 0 {
		t.Fatalf("%d records of closed lanes are left in the store", n)
	}
	var left []string
	r.runner.Do(ctx, func(e *scheduler.Engine, _ time.Time) {
		for _, d := range e.Pending() {
			if strings.HasPrefix(d.Key, ob.RedeliverKind+"/") {
				left = append(left, d.Key)
			}
		}
	})
	if len(left) > 0 {
		t.Fatalf("re-wakes of closed lanes are pending: %v", left)
	}
}

// The lane cap refuses a new lane beyond it (open or post with create);
// the cap follows SetMaxLanes.
func TestLaneCap(t *testing.T) {
	r := newRig(t, fastPolicies())
	r.opts.MaxLanes = 2
	r.start()
	defer func() { r.stop(false) }()
	ctx := ctxT(t)
	for _, l := range []string{"a", "b"} {
		if _, err := r.svc.OpenLane(ctx, l); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := r.svc.Post(ctx, human("c", "x", "hi"), true); !errors.Is(err, ob.ErrTooManyLanes) {
		t.Fatalf("post --create beyond the cap: %v, want ErrTooManyLanes", err)
	}
	r.svc.SetMaxLanes(3)
	if _, err := r.svc.Post(ctx, human("c", "x", "hi"), true); err != nil {
		t.Fatalf("after raising the cap: %v", err)
	}
}

// A lane closed after compaction leaves nothing behind: not its live
// obligations, not its compaction record, not its tombstones.
func TestCloseLaneAfterCompaction(t *testing.T) {
	r := newRig(t, fastPolicies())
	r.opts.Retention = ob.Retention{Keep: 100 * time.Millisecond, DedupHorizon: time.Hour}
	r.start()
	defer func() { r.stop(false) }()
	ctx := ctxT(t)
	for i := range 20 {
		if _, err := r.svc.Post(ctx, human("dev", "id-"+string(rune('a'+i)), "hi"), true); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := r.svc.Deliver(ctx, "dev", "agent"); err != nil {
		t.Fatal(err)
	}
	if _, err := r.svc.Ack(ctx, "dev", 10, ""); err != nil {
		t.Fatal(err)
	}
	count := func(prefix string) int {
		n := 0
		r.db.Scan(RecordNS, prefix, func(string, []byte) error { n++; return nil })
		return n
	}
	waitFor(t, "the compaction", func() bool { return count("t/") == 10 && count("o/") == 10 })
	if _, err := r.svc.CloseLane(ctx, "dev", true); err != nil {
		t.Fatal(err)
	}
	if n := count(""); n != 0 {
		t.Fatalf("%d records of the closed lane are left (o/ %d, t/ %d, b/ %d)", n, count("o/"), count("t/"), count("b/"))
	}
	r.restart()
	if ls, _ := r.svc.Lanes(ctx); len(ls) != 0 {
		t.Fatalf("the closed lane came back: %+v", ls)
	}
}
