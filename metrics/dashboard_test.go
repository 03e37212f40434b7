package metrics

import (
	"context"
	"encoding/json"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestDashboardQueriesNameExportedMetrics: every query of the Grafana
// dashboard in packaging/ names only series the daemon exports (a
// snapshot with every field set, fleet included).
func TestDashboardQueriesNameExportedMetrics(t *testing.T) {
	raw, err := os.ReadFile("../packaging/grafana-fleet.json")
	if err != nil {
		t.Fatal(err)
	}
	var dash struct {
		Panels []struct {
			Title   string `json:"title"`
			Targets []struct {
				Expr string `json:"expr"`
			} `json:"targets"`
		} `json:"panels"`
	}
	if err := json.Unmarshal(raw, &dash); err != nil {
		t.Fatalf("packaging/grafana-fleet.json: %v", err)
	}
	full := Snapshot{PendingByKind: map[string]int{"k": 1}, RunsByOutcome: map[string]uint64{"done": 1},
		AlertsByCode: map[string]uint64{"c": 1}, Lateness: []time.Duration{time.Millisecond}, Backlog: map[string]int{"r": 1},
		Unconsumed: map[LaneClass]int{{"l", "human"}: 1}, Wakes: map[string]uint64{"l": 1}, NoopWakes: map[string]uint64{"l": 1},
		Fleet: &FleetSnapshot{BrokerUp: true}}
	m := New(func(context.Context) (Snapshot, error) { return full, nil }, "test")
	families, err := m.Registry().Gather()
	if err != nil {
		t.Fatal(err)
	}
	var exported []string
	for _, f := range families {
		exported = append(exported, f.GetName())
		if f.GetType().String() == "HISTOGRAM" {
			exported = append(exported, f.GetName()+"_bucket", f.GetName()+"_sum", f.GetName()+"_count")
		}
	}
	name := regexp.MustCompile(`\bwakewheel_[a-z_]+\b`)
	queries := 0
	for _, p := range dash.Panels {
		for _, tg := range p.Targets {
			queries++
			names := name.FindAllString(tg.Expr, -1)
			if len(names) == 0 {
				t.Errorf("panel %q: query %q names no wakewheel metric", p.Title, tg.Expr)
			}
			for _, n := range names {
				if !slices.Contains(exported, n) {
					t.Errorf("panel %q: %s is not exported (exported: %s)", p.Title, n, strings.Join(exported, " "))
				}
			}
		}
	}
	if queries < 10 {
		t.Fatalf("only %d queries in the dashboard", queries)
	}
}
