package obligations

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"text/tabwriter"
)

// AllLanes and AllModes stand for every lane or every mode in a TurnStat
// row that sums others.
const (
	AllLanes = "*"
	AllModes = TurnMode("*")
)

// TurnStat is what agent turns cost on one lane in one mode (or, with
// AllLanes / AllModes, summed over them) over the ledger's span.
type TurnStat struct {
	Lane  string   `json:"lane"`
	Mode  TurnMode `json:"mode"`
	Turns int      `json:"turns"`
	Noops int      `json:"noops"` // turns that found no work
	// PerHour is Turns over the ledger's span (0 when the span is empty).
	PerHour float64 `json:"per_hour"`
	// NoopShare is Noops / Turns (0 without turns).
	NoopShare float64 `json:"noop_share"`
}

// turnStats sums the turn entries by lane and mode, then by mode over
// every lane, then overall; hours is the ledger's span.
func turnStats(entries []Entry, hours float64) []TurnStat {
	type key struct {
		lane string
		mode TurnMode
	}
	sums := map[key]*TurnStat{}
	add := func(k key, work bool) {
		st := sums[k]
		if st == nil {
			st = &TurnStat{Lane: k.lane, Mode: k.mode}
			sums[k] = st
		}
		st.Turns++
		if !work {
			st.Noops++
		}
	}
	for i := range entries {
		e := &entries[i]
		if e.Kind != EntryTurn {
			continue
		}
		add(key{e.Lane, e.Mode}, e.Work)
		add(key{AllLanes, e.Mode}, e.Work)
		add(key{AllLanes, AllModes}, e.Work)
	}
	out := make([]TurnStat, 0, len(sums))
	for _, st := range sums {
		if hours > 0 {
			st.PerHour = float64(st.Turns) / hours
		}
		st.NoopShare = float64(st.Noops) / float64(st.Turns)
		out = append(out, *st)
	}
	// Lanes first (by name), the sums last; modes by name, the total last.
	rank := func(lane string, mode TurnMode) (int, int) {
		a, b := 0, 0
		if lane == AllLanes {
			a = 1
		}
		if mode == AllModes {
			b = 1
		}
		return a, b
	}
	slices.SortFunc(out, func(x, y TurnStat) int {
		xa, xb := rank(x.Lane, x.Mode)
		ya, yb := rank(y.Lane, y.Mode)
		return cmp.Or(cmp.Compare(xa, ya), strings.Compare(x.Lane, y.Lane), cmp.Compare(xb, yb),
			strings.Compare(string(x.Mode), string(y.Mode)))
	})
	return out
}

// Turn returns the TurnStat of lane and mode (AllLanes, AllModes for sums).
func (r Report) Turn(lane string, mode TurnMode) (TurnStat, bool) {
	for _, st := range r.Turns {
		if st.Lane == lane && st.Mode == mode {
			return st, true
		}
	}
	return TurnStat{}, false
}

// turnTable renders the turn rows.
func turnTable(b *strings.Builder, rows []TurnStat) {
	if len(rows) == 0 {
		return
	}
	b.WriteString("agent turns:\n")
	tw := tabwriter.NewWriter(b, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "  lane\tmode\tturns\tno-op\tturns/hour\tno-op share")
	for _, st := range rows {
		fmt.Fprintf(tw, "  %s\t%s\t%d\t%d\t%.2f\t%.3f\n", st.Lane, st.Mode, st.Turns, st.Noops, st.PerHour, st.NoopShare)
	}
	tw.Flush()
}
