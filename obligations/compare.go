package obligations

import (
	"fmt"
	"slices"
	"strings"
	"text/tabwriter"
)

// Comparison sets two ledgers' reports side by side: Old is the mechanism
// being retired, New the candidate.
type Comparison struct {
	Old, New Report
	Rows     []ComparisonRow
	// CutOver is the verdict of the doctrine's safety vector as far as the
	// reports can tell: New passes every metric and its no-op rate is not
	// above Old's. Source parity (every obligation the old mechanism saw is
	// in the new ledger) needs the entries themselves: see Parity.
	CutOver bool
	// Reasons lists what blocks the cut-over, one line each.
	Reasons []string
}

// ComparisonRow is one metric in both reports (a side may be missing).
type ComparisonRow struct {
	Label    string
	Old, New *Metric
}

// Compare sets a (old) and b (new) side by side.
func Compare(a, b Report) Comparison {
	c := Comparison{Old: a, New: b}
	index := map[string]int{}
	add := func(m Metric, old bool) {
		i, ok := index[m.Label()]
		if !ok {
			i = len(c.Rows)
			index[m.Label()] = i
			c.Rows = append(c.Rows, ComparisonRow{Label: m.Label()})
		}
		if old {
			c.Rows[i].Old = &m
		} else {
			c.Rows[i].New = &m
		}
	}
	for _, m := range a.Metrics {
		add(m, true)
	}
	for _, m := range b.Metrics {
		add(m, false)
	}
	for _, row := range c.Rows {
		if row.New != nil && !row.New.Pass {
			c.Reasons = append(c.Reasons, fmt.Sprintf("new %s is %s, above its limit %s",
				row.Label, row.New.format(row.New.Value), row.New.format(row.New.Limit)))
		}
	}
	oldNoop, okA := a.Metric("noop_rate")
	newNoop, okB := b.Metric("noop_rate")
	if okA && okB && newNoop.Value > oldNoop.Value {
		c.Reasons = append(c.Reasons, fmt.Sprintf("new noop_rate %.3f is above the old %.3f",
			newNoop.Value, oldNoop.Value))
	}
	c.CutOver = len(c.Reasons) == 0
	return c
}

// String renders the comparison as a table with a verdict.
func (c Comparison) String() string {
	var b strings.Builder
	tw := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "metric\told\tnew\tlimit\tnew verdict")
	cell := func(m *Metric) string {
		if m == nil {
			return "-"
		}
		return m.format(m.Value)
	}
	for _, row := range c.Rows {
		limit, v := "-", "-"
		if row.New != nil {
			limit, v = "<= "+row.New.format(row.New.Limit), verdict(row.New.Pass)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", row.Label, cell(row.Old), cell(row.New), limit, v)
	}
	tw.Flush()
	oldT, _ := c.Old.Turn(AllLanes, AllModes)
	newT, _ := c.New.Turn(AllLanes, AllModes)
	fmt.Fprintf(&b, "agent turns: old %d (%.2f/hour, no-op share %.3f), new %d (%.2f/hour, no-op share %.3f)\n",
		oldT.Turns, oldT.PerHour, oldT.NoopShare, newT.Turns, newT.PerHour, newT.NoopShare)
	for _, side := range []struct {
		name string
		r    Report
	}{{"old", c.Old}, {"new", c.New}} {
		for _, st := range side.r.Turns {
			if st.Lane == AllLanes && st.Mode != AllModes {
				fmt.Fprintf(&b, "  %s %s: %d turns, %.2f/hour, no-op share %.3f\n", side.name, st.Mode, st.Turns, st.PerHour, st.NoopShare)
			}
		}
	}
	if c.CutOver {
		b.WriteString("cut-over: ready (check source parity too)\n")
	} else {
		b.WriteString("cut-over: blocked\n")
		for _, r := range c.Reasons {
			fmt.Fprintf(&b, "  - %s\n", r)
		}
	}
	return b.String()
}

// Parity returns the obligations posted in the old ledger that the new one
// never saw posted, as "lane/id" (or "lane/#seq" without an id), sorted.
// An empty result is the doctrine's "source parity inventory complete".
func Parity(old, new []Entry) []string {
	seen := map[string]bool{}
	for i := range new {
		if new[i].Kind == EntryPost {
			seen[entryKey(&new[i])] = true
		}
	}
	var missing []string
	for i := range old {
		e := &old[i]
		if e.Kind != EntryPost || seen[entryKey(e)] {
			continue
		}
		seen[entryKey(e)] = true
		if e.ID != "" {
			missing = append(missing, e.Lane+"/"+e.ID)
		} else {
			missing = append(missing, fmt.Sprintf("%s/#%d", e.Lane, e.Seq))
		}
	}
	slices.Sort(missing)
	return missing
}
