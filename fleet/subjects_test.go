package fleet

import (
	"math/rand/v2"
	"strings"
	"testing"
)

func TestEncodeRoundTripsAndNeverSplitsSubjects(t *testing.T) {
	names := []string{"work", "a.b", "a_b", "..", "x*y>z", "host-1.example.com", "_2e", "Ünï"}
	r := rand.New(rand.NewPCG(1, 2))
	for range 500 {
		b := make([]byte, 1+r.IntN(20))
		for i := range b {
			b[i] = byte(r.IntN(256))
		}
		names = append(names, string(b))
	}
	for _, n := range names {
		tok := Encode(n)
		if strings.ContainsAny(tok, ".*> \t") {
			t.Fatalf("Encode(%q) = %q holds a subject separator or wildcard", n, tok)
		}
		back, err := Decode(tok)
		if err != nil || back != n {
			t.Fatalf("Decode(Encode(%q)) = %q, %v", n, back, err)
		}
	}
	home, lane, origin, err := ParseSubject(Subject("a.example", "lane.with.dots", "b"))
	if err != nil || home != "a.example" || lane != "lane.with.dots" || origin != "b" {
		t.Fatalf("ParseSubject = %q %q %q %v", home, lane, origin, err)
	}
	for _, bad := range []string{"wakewheel.ob.a.b", "other.ob.a.b.c", "wakewheel.ob.a_zz.b.c", "wakewheel.ob.a_2.b.c"} {
		if _, _, _, err := ParseSubject(bad); err == nil {
			t.Errorf("ParseSubject(%q) accepted", bad)
		}
	}
}

func TestBeaconTTLIsWholeSeconds(t *testing.T) {
	for _, tc := range []struct{ period, grace, want string }{
		{"30s", "30s", "1m0s"}, {"1s", "500ms", "2s"}, {"100ms", "100ms", "1s"},
	} {
		o := Options{BeaconPeriod: mustDur(t, tc.period), BeaconGrace: mustDur(t, tc.grace)}
		if got := o.BeaconTTL().String(); got != tc.want {
			t.Errorf("TTL(%s+%s) = %s, want %s", tc.period, tc.grace, got, tc.want)
		}
	}
}
