package wakes

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	ob "github.com/wakewheel/wakewheel/obligations"
)

func TestPostIsDurableAndIdempotentAcrossRestarts(t *testing.T) {
	r := newRig(t, fastPolicies()).start()
	defer func() { r.stop(false) }()
	ctx := ctxT(t)
	if _, err := r.svc.OpenLane(ctx, "dev"); err != nil {
		t.Fatal(err)
	}
	o1, err := r.svc.Post(ctx, human("dev", "m1", "first"), false)
	if err != nil || o1.Seq != 1 || o1.Duplicate {
		t.Fatalf("post: %+v %v", o1, err)
	}
	o2, err := r.svc.Post(ctx, peer("dev", "m2", "second"), false)
	if err != nil || o2.Seq != 2 {
		t.Fatalf("post: %+v %v", o2, err)
	}
	r.restart()
	dup, err := r.svc.Post(ctx, human("dev", "m1", "a different text"), false)
	if err != nil || !dup.Duplicate || dup.Seq != 1 || dup.Body != "first" {
		t.Fatalf("re-post after restart: %+v %v, want the original #1", dup, err)
	}
	o3, err := r.svc.Post(ctx, human("dev", "", "no id given"), false)
	if err != nil || o3.Seq != 3 || !strings.HasPrefix(o3.ID, "auto-") {
		t.Fatalf("post without id: %+v %v", o3, err)
	}
}

func TestWaitPresentsTheUncapturedSuffixAgain(t *testing.T) {
	r := newRig(t, fastPolicies()).start()
	defer func() { r.stop(false) }()
	ctx := ctxT(t)
	r.svc.OpenLane(ctx, "dev")
	for i := 1; i <= 3; i++ {
		if _, err := r.svc.Post(ctx, human("dev", fmt.Sprint("m", i), fmt.Sprint("body ", i)), false); err != nil {
			t.Fatal(err)
		}
	}
	d, woke, err := r.svc.Wait(ctx, "dev", "agent", "", time.Second)
	if err != nil || !woke || len(d.Messages) != 3 || d.WakeID != "dev@3" {
		t.Fatalf("wait: woke=%v err=%v digest=%+v", woke, err, d)
	}
	if _, err := r.svc.Ack(ctx, "dev", 2, ""); err != nil {
		t.Fatal(err)
	}
	r.restart()
	d, woke, err = r.svc.Wait(ctx, "dev", "agent", "", time.Second)
	if err != nil || !woke || d.Consumed != 2 || len(d.Messages) != 1 || d.Messages[0].Seq != 3 {
		t.Fatalf("after restart: woke=%v err=%v consumed=%d messages=%+v", woke, err, d.Consumed, d.Messages)
	}
	if !d.Redelivery {
		t.Errorf("the same wake id was delivered before the restart: want Redelivery")
	}
	// A consumer that holds the wake id waits for something new.
	_, woke, err = r.svc.Wait(ctx, "dev", "agent", d.WakeID, 30*time.Millisecond)
	if err != nil || woke {
		t.Fatalf("wait after the known wake id: woke=%v err=%v, want a timeout (the cadence is 80ms)", woke, err)
	}
}

func TestWaitBlocksUntilAPostAndTimesOutOnAnEmptyLane(t *testing.T) {
	r := newRig(t, fastPolicies()).start()
	defer func() { r.stop(false) }()
	ctx := ctxT(t)
	if _, err := r.svc.OpenLane(ctx, "idle"); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, woke, err := r.svc.Wait(ctx, "idle", "", "", 150*time.Millisecond)
	if err != nil || woke || time.Since(start) < 150*time.Millisecond {
		t.Fatalf("empty lane: woke=%v err=%v after %v", woke, err, time.Since(start))
	}
	got := make(chan ob.Digest, 1)
	go func() {
		d, _, _ := r.svc.Wait(ctx, "idle", "", "", 5*time.Second)
		got <- d
	}()
	time.Sleep(20 * time.Millisecond)
	if _, err := r.svc.Post(ctx, human("idle", "x", "hello"), false); err != nil {
		t.Fatal(err)
	}
	select {
	case d := <-got:
		if d.Head != 1 || d.Received != 1 || len(d.Messages) != 1 {
			t.Fatalf("woken digest: %+v", d)
		}
	case <-time.After(3 * time.Second):
		t.Fatal("the waiter was not woken by the post")
	}
}

func TestFallbackCadenceRewakesUntilConsumed(t *testing.T) {
	r := newRig(t, fastPolicies()).start()
	defer func() { r.stop(false) }()
	ctx := ctxT(t)
	r.svc.OpenLane(ctx, "dev")
	posted := time.Now()
	r.svc.Post(ctx, human("dev", "m1", "please look"), false)
	d, _, _ := r.svc.Wait(ctx, "dev", "", "", time.Second)
	// Holding the wake id, the consumer is re-woken by the cadence (80 ms),
	// with the same wake id, well within the SLO (400 ms).
	d2, woke, err := r.svc.Wait(ctx, "dev", "", d.WakeID, 2*time.Second)
	if err != nil || !woke || d2.WakeID != d.WakeID || !d2.Redelivery {
		t.Fatalf("re-wake: woke=%v err=%v %+v", woke, err, d2)
	}
	if gap := time.Since(posted); gap > 400*time.Millisecond {
		t.Errorf("re-woken after %v, past the SLO", gap)
	}
	if _, err := r.svc.Ack(ctx, "dev", d2.Head, "replied"); err != nil {
		t.Fatal(err)
	}
	// Nothing unconsumed: no wake, however long the consumer waits.
	if _, woke, _ := r.svc.Wait(ctx, "dev", "", d.WakeID, 300*time.Millisecond); woke {
		t.Fatal("woken with nothing unconsumed")
	}
	entries, _, err := r.svc.Ledger(ctx, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[ob.EntryKind]int{}
	for _, e := range entries {
		kinds[e.Kind]++
	}
	if kinds[ob.EntryPost] != 1 || kinds[ob.EntryDelivery] != 1 || kinds[ob.EntryConsumption] != 1 || kinds[ob.EntryAction] != 1 || kinds[ob.EntryNoop] != 0 {
		t.Fatalf("ledger kinds %v", kinds)
	}
}

func TestAckIsCumulativeAndRefusedPastReceived(t *testing.T) {
	r := newRig(t, fastPolicies()).start()
	defer func() { r.stop(false) }()
	ctx := ctxT(t)
	r.svc.OpenLane(ctx, "dev")
	r.svc.Post(ctx, human("dev", "a", "1"), false)
	r.svc.Wait(ctx, "dev", "", "", time.Second)
	r.svc.Post(ctx, human("dev", "b", "2"), false)
	if _, err := r.svc.Ack(ctx, "dev", 2, ""); !errors.Is(err, ob.ErrAckPastReceived) {
		t.Fatalf("ack past RECEIVED: %v", err)
	}
	st, err := r.svc.Ack(ctx, "dev", 1, "")
	if err != nil || st.Consumed != 1 {
		t.Fatalf("ack 1: %+v %v", st, err)
	}
	st, err = r.svc.Ack(ctx, "dev", 0, "")
	if err != nil || st.Consumed != 1 {
		t.Fatalf("ack below CONSUMED must be a no-op: %+v %v", st, err)
	}
}

func TestParkAndResume(t *testing.T) {
	r := newRig(t, fastPolicies()).start()
	defer func() { r.stop(false) }()
	ctx := ctxT(t)
	r.svc.OpenLane(ctx, "dev")
	r.svc.Post(ctx, human("dev", "a", "before park"), false)
	r.svc.Wait(ctx, "dev", "", "", time.Second)
	r.svc.Ack(ctx, "dev", 1, "")
	cp, err := r.svc.Park(ctx, "dev")
	if err != nil || cp.Consumed != 1 || cp.Head != 1 {
		t.Fatalf("park: %+v %v", cp, err)
	}
	r.svc.Post(ctx, human("dev", "b", "while parked"), false)
	r.restart()
	d, err := r.svc.Resume(ctx, "dev", "agent", nil)
	if err != nil || d.Since == nil || d.Since.Head != 1 || len(d.Messages) != 1 || d.Messages[0].Body != "while parked" {
		t.Fatalf("resume: %+v %v", d, err)
	}
	if _, err := r.svc.Resume(ctx, "other", "", nil); !errors.Is(err, ob.ErrUnknownLane) {
		t.Fatalf("resume of an unknown lane: %v", err)
	}
}

func TestBadInputStoresNothing(t *testing.T) {
	pol := fastPolicies()
	r := newRig(t, pol).start()
	defer func() { r.stop(false) }()
	ctx := ctxT(t)
	r.svc.OpenLane(ctx, "dev")
	records, ledger := countRecords(t, r.db, RecordNS), countRecords(t, r.db, LedgerNS)
	cases := []struct {
		o      ob.Obligation
		create bool
		want   error
	}{
		{human("nolane", "x", "hi"), false, ob.ErrUnknownLane},
		{ob.Obligation{Lane: "dev", ID: "x", Class: "pager", Body: "hi"}, false, ob.ErrUnknownClass},
		{ob.Obligation{Lane: "dev", ID: "x", Class: ob.ClassPeer, Body: "hi"}, false, ob.ErrNoLocator},
		{human("dev", "x", strings.Repeat("x", 1025)), false, ob.ErrBodyTooLarge},
		{human("a/b", "x", "hi"), true, ob.ErrBadLane},
	}
	for _, c := range cases {
		if _, err := r.svc.Post(ctx, c.o, c.create); !errors.Is(err, c.want) {
			t.Errorf("post %+v: %v, want %v", c.o, err, c.want)
		}
	}
	if n, m := countRecords(t, r.db, RecordNS), countRecords(t, r.db, LedgerNS); n != records || m != ledger {
		t.Fatalf("bad input stored something: records %d -> %d, ledger %d -> %d", records, n, ledger, m)
	}
}

func TestConcurrentPostersShareFsyncsAndLeaveNoGap(t *testing.T) {
	r := newRig(t, fastPolicies()).start()
	defer func() { r.stop(false) }()
	ctx := ctxT(t)
	lanes := []string{"a", "b", "c"}
	for _, l := range lanes {
		r.svc.OpenLane(ctx, l)
	}
	before := r.db.Stats()
	const posters, each = 32, 20
	var wg sync.WaitGroup
	for p := range posters {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				if _, err := r.svc.Post(ctx, human(lanes[(p+i)%3], fmt.Sprintf("p%d-%d", p, i), "x"), false); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	wg.Wait()
	st := r.db.Stats()
	commits := st.SyncedCommits - before.SyncedCommits
	if commits >= posters*each {
		t.Errorf("%d synced commits for %d posts: nothing was grouped", commits, posters*each)
	}
	t.Logf("%d posts in %d synced commits", posters*each, commits)
	r.restart() // Restore fails on any sequence gap
	total := 0
	lanesNow, _ := r.svc.Lanes(ctx)
	for _, l := range lanesNow {
		total += int(l.Head)
	}
	if total != posters*each {
		t.Fatalf("%d obligations after restart, want %d", total, posters*each)
	}
}

func TestSetPoliciesAppliesLive(t *testing.T) {
	r := newRig(t, fastPolicies()).start()
	defer func() { r.stop(false) }()
	ctx := ctxT(t)
	r.svc.OpenLane(ctx, "dev")
	r.svc.Post(ctx, human("dev", "a", "x"), false)
	d, _, _ := r.svc.Wait(ctx, "dev", "", "", time.Second)
	slow := fastPolicies()
	for c, p := range slow {
		p.Cadence, p.SLO, p.MaxBody = time.Hour, time.Hour, 8
		slow[c] = p
	}
	// The pending re-wake (80 ms) stays: a push never moves it later.
	if err := r.svc.SetPolicies(ctx, slow); err != nil {
		t.Fatal(err)
	}
	if _, woke, _ := r.svc.Wait(ctx, "dev", "", d.WakeID, time.Second); !woke {
		t.Fatal("the re-wake pending under the old cadence was lost")
	}
	// After that wake, the new cadence (1 h) rules: no re-wake now.
	if _, woke, _ := r.svc.Wait(ctx, "dev", "", d.WakeID, 300*time.Millisecond); woke {
		t.Fatal("re-woken at the old cadence after the reload")
	}
	if _, err := r.svc.Post(ctx, human("dev", "b", "longer than 8"), false); !errors.Is(err, ob.ErrBodyTooLarge) {
		t.Fatalf("the new body limit is not in force: %v", err)
	}
	if st, _ := r.svc.Lanes(ctx); st[0].Head != 1 || st[0].Received != 1 {
		t.Fatalf("the reload lost state: %+v", st[0])
	}
}
