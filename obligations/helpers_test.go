package obligations_test

import (
	"testing"
	"time"

	ob "github.com/wakewheel/wakewheel/obligations"
)

var t0 = time.Date(2026, 1, 5, 9, 0, 0, 0, time.UTC)

func newState(t *testing.T) *ob.State {
	t.Helper()
	s, err := ob.New(ob.DefaultPolicies())
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func human(lane, id, body string) ob.Obligation {
	return ob.Obligation{Lane: lane, ID: id, Class: ob.ClassHuman, Body: body}
}

func peer(lane, id, body string) ob.Obligation {
	return ob.Obligation{Lane: lane, ID: id, Class: ob.ClassPeer, Body: body,
		Locator: ob.Locator{Repo: "wakewheel", Issue: "4"}}
}

func mustPost(t *testing.T, s *ob.State, o ob.Obligation, now time.Time) (ob.Obligation, ob.Effects) {
	t.Helper()
	got, eff, err := s.Post(o, now)
	if err != nil {
		t.Fatalf("post %s/%s: %v", o.Lane, o.ID, err)
	}
	return got, eff
}

func mustDeliver(t *testing.T, s *ob.State, lane string, now time.Time) (ob.Digest, ob.Effects) {
	t.Helper()
	d, eff, err := s.Deliver(lane, "", now)
	if err != nil {
		t.Fatalf("deliver %s: %v", lane, err)
	}
	return d, eff
}

// roundTrip encodes and decodes records, as a store would.
func roundTrip(t *testing.T, recs []ob.Record) []ob.Record {
	t.Helper()
	out := make([]ob.Record, 0, len(recs))
	for _, r := range recs {
		got, err := ob.Decode(ob.Encode(r))
		if err != nil {
			t.Fatalf("decode %s: %v", r.Key(), err)
		}
		out = append(out, got)
	}
	return out
}
