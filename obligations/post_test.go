package obligations_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	ob "github.com/wakewheel/wakewheel/obligations"
)

func TestPoliciesValidate(t *testing.T) {
	if err := ob.DefaultPolicies().Validate(); err != nil {
		t.Fatalf("defaults: %v", err)
	}
	cases := []struct {
		name string
		edit func(ob.Policies)
		want string
	}{
		{"cadence above SLO", func(p ob.Policies) { p[ob.ClassPeer] = ob.Policy{Cadence: time.Hour, SLO: time.Minute} }, "cadence 1h0m0s is longer than its SLO 1m0s"},
		{"missing class", func(p ob.Policies) { delete(p, ob.ClassAlert) }, "class alert has no policy"},
		{"zero cadence", func(p ob.Policies) { p[ob.ClassHuman] = ob.Policy{SLO: time.Minute} }, "cadence 0s must be positive"},
		{"negative body", func(p ob.Policies) { p[ob.ClassDigest] = ob.Policy{Cadence: 1, SLO: 1, MaxBody: -1} }, "max body -1"},
		{"stray class", func(p ob.Policies) { p["pager"] = ob.Policy{Cadence: 1, SLO: 1} }, `unknown class "pager"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := ob.DefaultPolicies()
			tc.edit(p)
			err := p.Validate()
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Validate() = %v, want an error containing %q", err, tc.want)
			}
			if _, err := ob.New(p); err == nil {
				t.Fatal("New accepted invalid policies")
			}
		})
	}
}

func TestPostRejectsBadInput(t *testing.T) {
	big := strings.Repeat("x", ob.DefaultMaxBody+1)
	cases := []struct {
		name string
		o    ob.Obligation
		is   error
		want string
	}{
		{"unknown class", ob.Obligation{Lane: "a", ID: "x", Class: "pager", Body: "hi"},
			ob.ErrUnknownClass, "valid: human, peer, digest, alert"},
		{"peer without locator", ob.Obligation{Lane: "a", ID: "x", Class: ob.ClassPeer, Body: "look"},
			ob.ErrNoLocator, "needs repo plus at least one of issue, sha, file"},
		{"alert with repo only", ob.Obligation{Lane: "a", ID: "x", Class: ob.ClassAlert, Locator: ob.Locator{Repo: "r"}},
			ob.ErrNoLocator, "got repo=r"},
		{"digest with issue but no repo", ob.Obligation{Lane: "a", ID: "x", Class: ob.ClassDigest, Locator: ob.Locator{Issue: "4"}},
			ob.ErrNoLocator, "class digest is actionable"},
		{"oversized body", human("a", "x", big), ob.ErrBodyTooLarge, "at most 65536 bytes (setting obligations.max_body)"},
		{"empty lane", human("", "x", "hi"), ob.ErrBadLane, "lane name is empty"},
		{"slash in lane", human("a/b", "x", "hi"), ob.ErrBadLane, `character '/' is not allowed`},
		{"space in lane", human("a b", "x", "hi"), ob.ErrBadLane, "not allowed"},
		{"empty id", human("a", "", "hi"), ob.ErrBadID, "id is empty"},
		{"id with space", human("a", "x y", "hi"), ob.ErrBadID, "without spaces"},
		{"body not UTF-8", human("a", "x", "\xff\xfe"), ob.ErrBadBody, "UTF-8"},
		{"control char in locator", ob.Obligation{Lane: "a", ID: "x", Class: ob.ClassPeer,
			Locator: ob.Locator{Repo: "r", File: "a\x00b"}}, ob.ErrBadField, "locator file"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := newState(t)
			_, eff, err := s.Post(tc.o, t0)
			if !errors.Is(err, tc.is) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Post() error = %v, want %v containing %q", err, tc.is, tc.want)
			}
			if !eff.Empty() || len(s.Lanes()) != 0 {
				t.Fatalf("a rejected post left effects %+v or lanes %v", eff, s.Lanes())
			}
		})
	}
}

func TestHumanMessageNeedsNoLocator(t *testing.T) {
	s := newState(t)
	got, _ := mustPost(t, s, human("a", "h1", "lunch?"), t0)
	if got.Seq != 1 || !got.Posted.Equal(t0) || got.Duplicate {
		t.Fatalf("got %+v", got)
	}
}

func TestPerClassMaxBody(t *testing.T) {
	p := ob.DefaultPolicies()
	p[ob.ClassHuman] = ob.Policy{Cadence: time.Minute, SLO: time.Minute, MaxBody: 4}
	s, err := ob.New(p)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.Post(human("a", "h1", "hello"), t0); !errors.Is(err, ob.ErrBodyTooLarge) ||
		!strings.Contains(err.Error(), "at most 4 bytes") {
		t.Fatalf("err = %v", err)
	}
}

func TestPostWakesAndSchedulesRedelivery(t *testing.T) {
	s := newState(t)
	o, eff := mustPost(t, s, human("a", "h1", "hi"), t0)
	if !eff.Sync || len(eff.Records) != 1 || eff.Records[0].Kind != ob.RecordObligation {
		t.Fatalf("records %+v sync %v: want one synced obligation record", eff.Records, eff.Sync)
	}
	want := ob.Wake{Lane: "a", WakeID: "a@1", Reason: ob.WakePost, Class: ob.ClassHuman, Head: 1, At: t0}
	if len(eff.Wakes) != 1 || eff.Wakes[0] != want {
		t.Fatalf("wakes %+v, want %+v", eff.Wakes, want)
	}
	if len(eff.Deadlines) != 1 || eff.Deadlines[0].String() != "reset redeliver/a/human at 2026-01-05T09:05:00Z" {
		t.Fatalf("deadlines %v", eff.Deadlines)
	}
	if len(eff.Ledger) != 1 || eff.Ledger[0].Kind != ob.EntryPost || eff.Ledger[0].Seq != o.Seq {
		t.Fatalf("ledger %+v", eff.Ledger)
	}

	// A second post of another class is a new wake and restarts both cadences.
	_, eff = mustPost(t, s, peer("a", "p1", "check CI"), t0.Add(time.Minute))
	if eff.Wakes[0].WakeID != "a@2" {
		t.Fatalf("wake id %s, want a@2", eff.Wakes[0].WakeID)
	}
	var got []string
	for _, d := range eff.Deadlines {
		got = append(got, d.String())
	}
	if strings.Join(got, "; ") != "reset redeliver/a/human at 2026-01-05T09:06:00Z; reset redeliver/a/peer at 2026-01-05T09:11:00Z" {
		t.Fatalf("deadlines %v", got)
	}
}

func TestDuplicateIDReturnsOriginal(t *testing.T) {
	s := newState(t)
	first, _ := mustPost(t, s, human("a", "h1", "original"), t0)
	again, eff, err := s.Post(human("a", "h1", "a different body"), t0.Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if !again.Duplicate || again.Body != "original" || again.Seq != first.Seq || !again.Posted.Equal(t0) {
		t.Fatalf("duplicate post returned %+v", again)
	}
	if !eff.Empty() {
		t.Fatalf("duplicate post has effects %+v", eff)
	}
	// Ids are per lane: the same id in another lane is a new obligation.
	other, _ := mustPost(t, s, human("b", "h1", "other lane"), t0)
	if other.Duplicate || other.Seq != 1 {
		t.Fatalf("other lane: %+v", other)
	}
}

func TestDuplicateIDAfterRestore(t *testing.T) {
	s := newState(t)
	_, e1 := mustPost(t, s, human("a", "h1", "one"), t0)
	_, e2 := mustPost(t, s, peer("a", "p1", "two"), t0)
	records := roundTrip(t, append(e1.Records, e2.Records...))

	r, _, err := ob.Restore(ob.DefaultPolicies(), records, t0.Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	again, eff, err := r.Post(peer("a", "p1", "two, retried"), t0.Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if !again.Duplicate || again.Seq != 2 || again.Body != "two" || !eff.Empty() {
		t.Fatalf("after restore: %+v %+v", again, eff)
	}
	next, _ := mustPost(t, r, human("a", "h2", "three"), t0.Add(time.Hour))
	if next.Seq != 3 {
		t.Fatalf("next seq %d, want 3", next.Seq)
	}
}
