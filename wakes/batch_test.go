package wakes

import (
	"errors"
	"testing"
	"time"

	ob "github.com/wakewheel/wakewheel/obligations"
	"github.com/wakewheel/wakewheel/store"
)

func TestPostBatchNumbersInOrderAndAbsorbsDuplicates(t *testing.T) {
	r := newRig(t, fastPolicies()).start()
	defer func() { r.stop(false) }()
	ctx := ctxT(t)
	if _, err := r.svc.Post(ctx, human("dev", "m1", "first"), true); err != nil {
		t.Fatal(err)
	}
	batch := []ob.Obligation{human("dev", "m2", "a"), human("dev", "m1", "again"), {Lane: "dev", ID: "x", Class: "nope", Body: "b"},
		human("dev", "m3", "b"), human("dev", "m2", "twice in one batch"), human("new", "n1", "c")}
	out, errs := r.svc.PostBatch(ctx, batch, false)
	want := []struct {
		seq uint64
		dup bool
		err error
	}{{2, false, nil}, {1, true, nil}, {0, false, ob.ErrUnknownClass}, {3, false, nil}, {2, true, nil}, {0, false, ob.ErrUnknownLane}}
	for i, w := range want {
		if !errors.Is(errs[i], w.err) || (w.err == nil && (out[i].Seq != w.seq || out[i].Duplicate != w.dup)) {
			t.Errorf("%d: seq %d dup %v err %v; want seq %d dup %v err %v", i, out[i].Seq, out[i].Duplicate, errs[i], w.seq, w.dup, w.err)
		}
	}
	r.restart() // what PostBatch answered is durable
	if got, err := r.svc.Post(ctx, human("dev", "m3", "x"), false); err != nil || !got.Duplicate || got.Seq != 3 {
		t.Fatalf("after restart: %+v %v", got, err)
	}
}

// PostEach takes create per post: a post that may open its lane opens it
// for the posts behind it, a post to an unknown lane without create is
// refused alone, and a lane's posts are numbered in the order given.
func TestPostEachCreatesPerPostAndKeepsEachError(t *testing.T) {
	r := newRig(t, fastPolicies()).start()
	defer func() { r.stop(false) }()
	batch := []ob.Obligation{human("typo", "t1", "x"), human("new", "n1", "a"), human("new", "n2", "b"),
		human("new", "n1", "again"), {Lane: "new", ID: "bad", Class: "nope", Body: "d"}, human("new", "n3", "c")}
	out, errs := r.svc.PostEach(ctxT(t), batch, []bool{false, true, false, false, false, false})
	want := []struct {
		seq uint64
		dup bool
		err error
	}{{0, false, ob.ErrUnknownLane}, {1, false, nil}, {2, false, nil}, {1, true, nil}, {0, false, ob.ErrUnknownClass}, {3, false, nil}}
	for i, w := range want {
		if !errors.Is(errs[i], w.err) || (w.err == nil && (out[i].Seq != w.seq || out[i].Duplicate != w.dup)) {
			t.Errorf("%d: seq %d dup %v err %v; want seq %d dup %v err %v", i, out[i].Seq, out[i].Duplicate, errs[i], w.seq, w.dup, w.err)
		}
	}
}

// heldStore holds every write of records until released: what it holds
// is not durable yet.
type heldStore struct {
	Store
	release chan struct{}
}

func (h heldStore) Write(sync bool, ops ...store.Op) error {
	<-h.release
	return h.Store.Write(sync, ops...)
}

// The posts of one PostEach are answered only once their write returned:
// while the store holds it, PostEach waits.
func TestPostEachAnswersOnlyOnceWritten(t *testing.T) {
	release := make(chan struct{})
	r := newRig(t, fastPolicies())
	r.wrap = func(s Store) Store { return heldStore{s, release} }
	r.start()
	defer func() { r.stop(false) }()
	done := make(chan []error, 1)
	go func() {
		_, errs := r.svc.PostEach(ctxT(t), []ob.Obligation{human("dev", "a", "a"), human("dev", "b", "b")}, []bool{true, true})
		done <- errs
	}()
	select {
	case errs := <-done:
		t.Fatalf("answered before the write returned: %v", errs)
	case <-time.After(50 * time.Millisecond):
	}
	close(release)
	for i, err := range <-done {
		if err != nil {
			t.Errorf("post %d: %v", i, err)
		}
	}
}
