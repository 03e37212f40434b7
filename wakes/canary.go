package wakes

import (
	"fmt"
	"slices"
	"time"

	ob "github.com/wakewheel/wakewheel/obligations"
)

// Canary returns the i-th synthetic obligation of a canary run at now: an
// ordinary obligation of class c, marked Canary, that the lane's consumer
// acks like any other. An actionable class gets a locator that names the
// canary, so it passes the hard-locator rule honestly.
func Canary(lane string, c ob.Class, now time.Time, i int) ob.Obligation {
	o := ob.Obligation{
		Lane: lane, Class: c, Canary: true,
		ID:   fmt.Sprintf("canary-%d-%d", now.UnixNano(), i),
		Body: fmt.Sprintf("canary %d posted at %s: a synthetic %s obligation; ack it like any other", i, now.UTC().Format(time.RFC3339), c),
	}
	if c.Actionable() {
		o.Locator = ob.Locator{Repo: "wakewheel-canary", Issue: o.ID}
		if c == ob.ClassAlert {
			o.Key = "canary"
		}
	}
	return o
}

// CanaryReport counts a ledger's canaries against their class SLOs, as of
// a moment (not as of the ledger's last entry: a canary nobody ever
// consumed leaves no later entry behind it).
type CanaryReport struct {
	Posted  int `json:"posted"`
	InTime  int `json:"in_time"` // consumed within the SLO
	Late    int `json:"late"`    // consumed after the SLO
	Missing int `json:"missing"` // not consumed, and the SLO has passed
	Pending int `json:"pending"` // not consumed yet, still within the SLO
	// FalseNegatives = Late + Missing: canaries the wake path failed.
	FalseNegatives int      `json:"false_negatives"`
	Failed         []string `json:"failed,omitempty"` // lane/id of each false negative
}

// CheckCanaries builds the CanaryReport of entries at now.
func CheckCanaries(entries []ob.Entry, slos ob.SLOs, now time.Time) CanaryReport {
	type canary struct {
		posted, consumed time.Time
		class            ob.Class
	}
	key := func(e *ob.Entry) string { return e.Lane + "/" + e.ID }
	cs := map[string]*canary{}
	var order []string
	for i := range entries {
		e := &entries[i]
		if e.Kind == ob.EntryPost && e.Canary && cs[key(e)] == nil {
			cs[key(e)] = &canary{posted: e.At, class: e.Class}
			order = append(order, key(e))
		}
	}
	for i := range entries {
		e := &entries[i]
		if c := cs[key(e)]; e.Kind == ob.EntryConsumption && c != nil && c.consumed.IsZero() {
			c.consumed = e.At
		}
	}
	var r CanaryReport
	for _, k := range order {
		c := cs[k]
		limit := c.posted.Add(slos.Of(c.class))
		r.Posted++
		switch {
		case !c.consumed.IsZero() && !c.consumed.After(limit):
			r.InTime++
		case !c.consumed.IsZero():
			r.Late++
			r.Failed = append(r.Failed, k)
		case now.After(limit):
			r.Missing++
			r.Failed = append(r.Failed, k)
		default:
			r.Pending++
		}
	}
	r.FalseNegatives = r.Late + r.Missing
	slices.Sort(r.Failed)
	return r
}
