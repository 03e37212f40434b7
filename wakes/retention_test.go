package wakes

import (
	"fmt"
	"strings"
	"testing"
	"time"

	ob "github.com/wakewheel/wakewheel/obligations"
)

// Consumed obligations are compacted by the compaction deadline once their
// retention ends; their ids are still absorbed as duplicates (before and
// after a restart) until the dedup horizon, when the sweep deletes their
// tombstones. Unconsumed and still-retained obligations stay whole.
func TestRetentionCompactsAndTombstonesDedup(t *testing.T) {
	const keep, horizon = 300 * time.Millisecond, 2 * time.Second
	r := newRig(t, fastPolicies())
	r.opts.Retention = ob.Retention{Keep: keep, DedupHorizon: horizon}
	r.start()
	defer func() { r.stop(false) }()
	ctx := ctxT(t)

	post := func(i int) ob.Obligation {
		t.Helper()
		o, err := r.svc.Post(ctx, human("dev", fmt.Sprint("id-", i), strings.Repeat("b", 200)), true)
		if err != nil {
			t.Fatal(err)
		}
		return o
	}
	for i := range 300 {
		post(i)
	}
	if _, err := r.svc.Deliver(ctx, "dev", "agent"); err != nil {
		t.Fatal(err)
	}
	if _, err := r.svc.Ack(ctx, "dev", 200, ""); err != nil {
		t.Fatal(err)
	}
	obligations := func() int {
		n := 0
		if err := r.db.Scan(RecordNS, "o/", func(string, []byte) error { n++; return nil }); err != nil {
			t.Fatal(err)
		}
		return n
	}
	tombstones := func() int {
		n := 0
		if err := r.db.Scan(RecordNS, "t/", func(string, []byte) error { n++; return nil }); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if n := obligations(); n != 300 {
		t.Fatalf("%d obligation records before the retention ended, want 300", n)
	}
	waitFor(t, "the consumed obligations to be compacted", func() bool { return obligations() == 100 })
	if n := tombstones(); n != 200 {
		t.Fatalf("%d tombstones after compacting 200, want 200", n)
	}
	r.svc.mu.Lock()
	_, ok := r.svc.st.Get("dev", 1)
	r.svc.mu.Unlock()
	if ok {
		t.Fatal("a compacted obligation is still in the state")
	}

	absorbed := func(when string) {
		t.Helper()
		dup := post(7)
		if !dup.Duplicate || !dup.Compacted || dup.Seq != 8 {
			t.Fatalf("%s: a re-post of a compacted id = %+v, want the duplicate of seq 8", when, dup)
		}
		if st, _ := r.svc.Lanes(ctx); st[0].Head != 300 {
			t.Fatalf("%s: the re-post raised the head to %d", when, st[0].Head)
		}
	}
	absorbed("after compaction")
	r.restart()
	absorbed("after a restart")
	d, err := r.svc.Digest(ctx, "dev", "agent")
	if err != nil || len(d.Messages) != 100 || d.Messages[0].Seq != 201 {
		t.Fatalf("digest after compaction and restart: %d messages from %v, %v; want 201..300", len(d.Messages), d.Messages[0].Seq, err)
	}

	waitFor(t, "the tombstones to be swept after the horizon", func() bool { return tombstones() == 0 })
	fresh := post(7)
	if fresh.Duplicate || fresh.Seq != 301 {
		t.Fatalf("a re-post past the dedup horizon = %+v, want a new obligation 301", fresh)
	}
}
