package obligations_test

import (
	"errors"
	"strings"
	"testing"

	ob "github.com/wakewheel/wakewheel/obligations"
)

// Check is Post's rule set without a State: what Post refuses, Check
// refuses with the same error.
func TestCheckRefusesWhatPostRefuses(t *testing.T) {
	pol := ob.DefaultPolicies()
	for _, tc := range []struct {
		o    ob.Obligation
		want error
	}{
		{ob.Obligation{Lane: "l", ID: "1", Class: ob.ClassHuman, Body: "ok"}, nil},
		{ob.Obligation{Lane: "l!", ID: "1", Class: ob.ClassHuman, Body: "x"}, ob.ErrBadLane},
		{ob.Obligation{Lane: "l", ID: "", Class: ob.ClassHuman, Body: "x"}, ob.ErrBadID},
		{ob.Obligation{Lane: "l", ID: "1", Class: "nope", Body: "x"}, ob.ErrUnknownClass},
		{ob.Obligation{Lane: "l", ID: "1", Class: ob.ClassPeer, Body: "x"}, ob.ErrNoLocator},
		{ob.Obligation{Lane: "l", ID: "1", Class: ob.ClassHuman, Body: strings.Repeat("x", ob.DefaultMaxBody+1)}, ob.ErrBodyTooLarge},
	} {
		err := tc.o.Check(pol)
		if !errors.Is(err, tc.want) || (tc.want == nil) != (err == nil) {
			t.Errorf("Check(%+v) = %v, want %v", tc.o.Class, err, tc.want)
		}
		st, err2 := ob.New(pol)
		if err2 != nil {
			t.Fatal(err2)
		}
		_, _, perr := st.Post(tc.o, t0)
		if (err == nil) != (perr == nil) || (err != nil && !errors.Is(perr, tc.want)) {
			t.Errorf("Post and Check disagree on %+v: %v vs %v", tc.o.Class, perr, err)
		}
	}
}
