package obligations_test

import (
	"testing"
	"time"

	ob "github.com/wakewheel/wakewheel/obligations"
)

// The lanes' timetable claims redeliver/<lane>/<class>, timed by the
// class's cadence, and nothing else.
func TestPoliciesTimetableClaimsTheRedeliverKeys(t *testing.T) {
	p := ob.DefaultPolicies()
	tt := p.Timetable()
	for key, want := range map[string]time.Duration{
		ob.RedeliverKey("dev", ob.ClassHuman): p[ob.ClassHuman].Cadence,
		ob.RedeliverKey("dev", ob.ClassAlert): p[ob.ClassAlert].Cadence,
	} {
		if got, ok := tt(key); !ok || got.Window != want || got.Cap != 0 {
			t.Errorf("%s: %+v %v, want window %s", key, got, ok, want)
		}
	}
	for _, key := range []string{"redeliver/dev/nosuch", "redeliver/dev", "reminder/redeliver", "burst/dev/human"} {
		if got, ok := tt(key); ok {
			t.Errorf("%s claimed: %+v", key, got)
		}
	}
}
