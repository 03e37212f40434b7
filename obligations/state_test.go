package obligations_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	ob "github.com/wakewheel/wakewheel/obligations"
)

func TestAckRules(t *testing.T) {
	s := newState(t)
	mustPost(t, s, human("a", "h1", "one"), t0)
	mustPost(t, s, peer("a", "p1", "two"), t0)

	// Nothing delivered yet: acking is refused.
	if _, err := s.Ack("a", 1, "", t0); !errors.Is(err, ob.ErrAckPastReceived) ||
		!strings.Contains(err.Error(), "ack upto 1 but RECEIVED is 0") {
		t.Fatalf("ack before delivery: %v", err)
	}
	mustDeliver(t, s, "a", t0)
	if _, err := s.Ack("a", 3, "", t0); !errors.Is(err, ob.ErrAckPastReceived) {
		t.Fatalf("ack past head: %v", err)
	}

	// Partial ack: human drained, its deadline cancelled; peer's kept.
	eff, err := s.Ack("a", 1, "", t0)
	if err != nil {
		t.Fatal(err)
	}
	if !eff.Sync || len(eff.Records) != 1 || eff.Records[0].Cursor.Consumed != 1 {
		t.Fatalf("ack records %+v", eff.Records)
	}
	if len(eff.Deadlines) != 1 || eff.Deadlines[0].String() != "cancel redeliver/a/human" {
		t.Fatalf("ack deadlines %v", eff.Deadlines)
	}

	// Backwards and repeated acks are no-ops, not errors.
	for _, upto := range []uint64{0, 1} {
		eff, err := s.Ack("a", upto, "", t0)
		if err != nil || !eff.Empty() {
			t.Fatalf("ack %d: %v %+v", upto, err, eff)
		}
	}
	st, _ := s.Lane("a")
	if st.Consumed != 1 {
		t.Fatalf("consumed moved to %d", st.Consumed)
	}

	// A qualified action adds an action entry per consumed obligation.
	eff, err = s.Ack("a", 2, "merged", t0.Add(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	if len(eff.Ledger) != 2 || eff.Ledger[1].Kind != ob.EntryAction || eff.Ledger[1].Action != "merged" {
		t.Fatalf("ledger %+v", eff.Ledger)
	}
	if _, err := s.Ack("nope", 1, "", t0); !errors.Is(err, ob.ErrUnknownLane) {
		t.Fatalf("unknown lane: %v", err)
	}
}

func TestFire(t *testing.T) {
	s := newState(t)
	mustPost(t, s, human("a", "h1", "one"), t0)
	mustPost(t, s, human("a", "h2", "two"), t0)

	at := t0.Add(5 * time.Minute)
	eff, err := s.Fire("redeliver/a/human", at)
	if err != nil {
		t.Fatal(err)
	}
	want := ob.Wake{Lane: "a", WakeID: "a@2", Reason: ob.WakeRedeliver, Class: ob.ClassHuman, Head: 2, At: at}
	if len(eff.Wakes) != 1 || eff.Wakes[0] != want {
		t.Fatalf("wakes %+v, want %+v (the wake id is kept)", eff.Wakes, want)
	}
	if len(eff.Deadlines) != 1 || eff.Deadlines[0].At != at.Add(5*time.Minute) {
		t.Fatalf("deadlines %v", eff.Deadlines)
	}

	// No peer obligation: a peer deadline firing is dropped.
	if eff, err := s.Fire("redeliver/a/peer", at); err != nil || !eff.Empty() {
		t.Fatalf("fire with nothing of its class: %v %+v", err, eff)
	}
	// Everything consumed: dropped, no wake.
	mustDeliver(t, s, "a", at)
	if _, err := s.Ack("a", 2, "", at); err != nil {
		t.Fatal(err)
	}
	if eff, err := s.Fire("redeliver/a/human", at.Add(5*time.Minute)); err != nil || !eff.Empty() {
		t.Fatalf("fire after full ack: %v %+v", err, eff)
	}

	for _, key := range []string{"burst/root", "redeliver/a", "redeliver/a/pager", "redeliver//human"} {
		if _, err := s.Fire(key, at); !errors.Is(err, ob.ErrUnknownKey) {
			t.Errorf("Fire(%q) = %v, want ErrUnknownKey", key, err)
		}
	}
	if _, err := s.Fire("redeliver/zz/human", at); !errors.Is(err, ob.ErrUnknownLane) {
		t.Errorf("unknown lane: %v", err)
	}
}

func TestDeliverDeduplicatesByWakeID(t *testing.T) {
	s := newState(t)
	mustPost(t, s, human("a", "h1", "one"), t0)
	d, eff := mustDeliver(t, s, "a", t0)
	if d.Redelivery || d.Received != 1 || d.WakeID != "a@1" || len(eff.Ledger) != 1 || eff.Ledger[0].Kind != ob.EntryDelivery {
		t.Fatalf("first delivery: %+v %+v", d, eff)
	}
	if eff.Sync {
		t.Fatal("a delivery cursor need not be synced")
	}
	d, eff = mustDeliver(t, s, "a", t0.Add(time.Minute))
	if !d.Redelivery || !eff.Empty() {
		t.Fatalf("second delivery of a@1: %+v %+v", d, eff)
	}
	mustPost(t, s, human("a", "h2", "two"), t0.Add(2*time.Minute))
	d, eff = mustDeliver(t, s, "a", t0.Add(2*time.Minute))
	if d.Redelivery || d.WakeID != "a@2" || d.Received != 2 || len(eff.Records) != 1 {
		t.Fatalf("delivery of a@2: %+v %+v", d, eff)
	}
}

func TestDeliverNothingIsNoopWake(t *testing.T) {
	s := newState(t)
	if _, err := s.Open("a", t0); err != nil {
		t.Fatal(err)
	}
	d, eff := mustDeliver(t, s, "a", t0)
	if !d.Noop || len(eff.Ledger) != 1 || eff.Ledger[0].Kind != ob.EntryNoop || len(eff.Records) != 0 {
		t.Fatalf("noop delivery: %+v %+v", d, eff)
	}
	if _, _, err := s.Deliver("b", "", t0); !errors.Is(err, ob.ErrUnknownLane) {
		t.Fatalf("unknown lane: %v", err)
	}
}

func TestOpenSurvivesRestore(t *testing.T) {
	s := newState(t)
	eff, err := s.Open("quiet", t0)
	if err != nil || len(eff.Records) != 1 {
		t.Fatalf("open: %v %+v", err, eff)
	}
	if again, _ := s.Open("quiet", t0); !again.Empty() {
		t.Fatal("re-opening has effects")
	}
	r, _, err := ob.Restore(ob.DefaultPolicies(), roundTrip(t, eff.Records), t0)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := r.Lane("quiet"); !ok {
		t.Fatal("opened lane lost by restore")
	}
	if _, err := s.Open("no/slash", t0); !errors.Is(err, ob.ErrBadLane) {
		t.Fatalf("bad lane: %v", err)
	}
}

func TestParkAndResume(t *testing.T) {
	s := newState(t)
	mustPost(t, s, human("a", "h1", "one"), t0)
	mustDeliver(t, s, "a", t0)
	if _, err := s.Ack("a", 1, "", t0); err != nil {
		t.Fatal(err)
	}
	cp, eff, err := s.Park("a", t0.Add(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	if cp != (ob.Checkpoint{Lane: "a", Consumed: 1, Head: 1, At: t0.Add(time.Minute)}) || !eff.Sync || len(eff.Records) != 2 {
		t.Fatalf("park: %+v %+v", cp, eff)
	}
	mustPost(t, s, human("a", "h2", "while parked"), t0.Add(2*time.Minute))

	d, eff, err := s.Resume(cp, "agent-a", t0.Add(3*time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	if d.Since == nil || *d.Since != cp || d.Who != "agent-a" || len(d.Messages) != 1 || d.Messages[0].Body != "while parked" {
		t.Fatalf("resume digest: %+v", d)
	}
	if len(eff.Records) != 1 || eff.Records[0].Cursor.Received != 2 {
		t.Fatalf("resume delivers: %+v", eff)
	}
	if !strings.Contains(d.Text(), "since park at 2026-01-05T09:01:00Z: consumed was 1, head was 1; 1 new since") {
		t.Fatalf("text:\n%s", d.Text())
	}

	bad := cp
	bad.Head = 9
	if _, _, err := s.Resume(bad, "", t0); !errors.Is(err, ob.ErrBadCheckpoint) {
		t.Fatalf("checkpoint ahead of the lane: %v", err)
	}
	if _, _, err := s.Park("nope", t0); !errors.Is(err, ob.ErrUnknownLane) {
		t.Fatalf("park unknown lane: %v", err)
	}
}

func TestRestoreRederivesDeadlines(t *testing.T) {
	s := newState(t)
	var recs []ob.Record
	for _, o := range []ob.Obligation{human("a", "h1", "x"), peer("a", "p1", "y"), human("b", "h2", "z")} {
		_, eff := mustPost(t, s, o, t0)
		recs = append(recs, eff.Records...)
	}
	_, eff := mustDeliver(t, s, "b", t0)
	recs = append(recs, eff.Records...)
	eff, _ = s.Ack("b", 1, "", t0)
	recs = append(recs, eff.Records...)

	mutations := func(eff ob.Effects) string {
		var got []string
		for _, d := range eff.Deadlines {
			got = append(got, d.String())
		}
		return strings.Join(got, "; ")
	}
	// Shortly after: each pending class no later than now+cadence.
	r, eff, err := ob.Restore(ob.DefaultPolicies(), roundTrip(t, recs), t0.Add(2*time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	want := "push redeliver/a/human at 2026-01-05T09:07:00Z; push redeliver/a/peer at 2026-01-05T09:12:00Z"
	if got := mutations(eff); got != want || len(eff.Wakes) != 0 {
		t.Fatalf("restore effects:\n got %s\nwant %s", got, want)
	}
	// Long after: the SLO since posting has passed, so at once.
	now := t0.Add(time.Hour)
	r, eff, err = ob.Restore(ob.DefaultPolicies(), roundTrip(t, recs), now)
	if err != nil {
		t.Fatal(err)
	}
	want = "push redeliver/a/human at 2026-01-05T10:00:00Z; push redeliver/a/peer at 2026-01-05T10:00:00Z"
	if got := mutations(eff); got != want {
		t.Fatalf("restore effects:\n got %s\nwant %s", got, want)
	}
	if st, _ := r.Lane("b"); st.Consumed != 1 || st.Received != 1 || st.Head != 1 {
		t.Fatalf("lane b after restore: %+v", st)
	}
	if eff, err := r.Fire("redeliver/a/human", now); err != nil || eff.Wakes[0].WakeID != "a@2" {
		t.Fatalf("redelivery after restore: %v %+v", err, eff)
	}
}

func TestRestoreRejectsInconsistentRecords(t *testing.T) {
	s := newState(t)
	var recs []ob.Record
	for _, id := range []string{"h1", "h2", "h3"} {
		_, eff := mustPost(t, s, human("a", id, id), t0)
		recs = append(recs, eff.Records...)
	}
	cases := map[string][]ob.Record{
		"obligations 2..2 are missing": {recs[0], recs[2]},
		"two different obligations":    {recs[0], recs[1], withBody(recs[1], "changed")},
		"cursors consumed 0, received 7": {recs[0],
			{Kind: ob.RecordCursor, Cursor: ob.Cursor{Lane: "a", Received: 7}}},
	}
	for want, rs := range cases {
		_, _, err := ob.Restore(ob.DefaultPolicies(), rs, t0)
		if !errors.Is(err, ob.ErrCorrupt) || !strings.Contains(err.Error(), want) {
			t.Errorf("Restore = %v, want ErrCorrupt containing %q", err, want)
		}
	}
	// The same record twice is fine (a replayed write).
	if _, _, err := ob.Restore(ob.DefaultPolicies(), []ob.Record{recs[0], recs[0], recs[1]}, t0); err != nil {
		t.Fatal(err)
	}
}

func withBody(r ob.Record, body string) ob.Record {
	r.Obligation.Body = body
	return r
}
