package wakes

import (
	"errors"
	"testing"

	ob "github.com/wakewheel/wakewheel/obligations"
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
