package obligations_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	ob "github.com/wakewheel/wakewheel/obligations"
)

func TestTurnIsOneLedgerEntry(t *testing.T) {
	st, err := ob.New(ob.DefaultPolicies())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.Turn("nobody", ob.TurnHook, "", true, t0); !errors.Is(err, ob.ErrUnknownLane) {
		t.Fatalf("turn on an unknown lane: %v", err)
	}
	if _, err := st.Open("a", t0); err != nil {
		t.Fatal(err)
	}
	for _, m := range []ob.TurnMode{"", "poll", ob.TurnHeartbeat} {
		if _, err := st.Turn("a", m, "", true, t0); !errors.Is(err, ob.ErrBadField) {
			t.Errorf("mode %q: %v, want ErrBadField", m, err)
		}
	}
	eff, err := st.Turn("a", ob.TurnRunner, "a@3", true, t0)
	if err != nil {
		t.Fatal(err)
	}
	if len(eff.Records) != 0 || len(eff.Wakes) != 0 || len(eff.Deadlines) != 0 || eff.Sync || len(eff.Ledger) != 1 {
		t.Fatalf("effects %+v: want one ledger entry and nothing else", eff)
	}
	if e := eff.Ledger[0]; e.Kind != ob.EntryTurn || e.Mode != ob.TurnRunner || !e.Work || e.WakeID != "a@3" {
		t.Fatalf("entry %+v", e)
	}
}

func TestReportCountsTurnsPerLaneAndMode(t *testing.T) {
	var entries []ob.Entry
	turn := func(lane string, m ob.TurnMode, work bool, at time.Duration) {
		entries = append(entries, ob.Entry{Kind: ob.EntryTurn, Lane: lane, Mode: m, Work: work, At: t0.Add(at)})
	}
	// a: 4 hook turns with work over 2 hours; b: 8 heartbeats, 6 for nothing.
	for i := range 4 {
		turn("a", ob.TurnHook, true, time.Duration(i)*30*time.Minute)
	}
	for i := range 8 {
		turn("b", ob.TurnHeartbeat, i%4 == 0, time.Duration(i)*15*time.Minute)
	}
	turn("a", ob.TurnHook, true, 2*time.Hour)
	r := ob.ComputeReport(entries, ob.DefaultSLOs(ob.DefaultPolicies()))
	check := func(lane string, m ob.TurnMode, turns, noops int, perHour float64) {
		t.Helper()
		st, ok := r.Turn(lane, m)
		if !ok || st.Turns != turns || st.Noops != noops || st.PerHour != perHour {
			t.Errorf("%s/%s = %+v (found %v), want %d turns, %d no-op, %.2f/h", lane, m, st, ok, turns, noops, perHour)
		}
	}
	check("a", ob.TurnHook, 5, 0, 2.5)
	check("b", ob.TurnHeartbeat, 8, 6, 4)
	check(ob.AllLanes, ob.TurnHook, 5, 0, 2.5)
	check(ob.AllLanes, ob.AllModes, 13, 6, 6.5)
	m, _ := r.Metric("noop_turn_share")
	if m.Pass || m.N != 13 {
		t.Errorf("noop_turn_share %+v: 6 of 13 must fail the 5%% limit", m)
	}
	if text := r.String(); !strings.Contains(text, "agent turns:") || !strings.Contains(text, "heartbeat") {
		t.Errorf("report text lacks the turn table:\n%s", text)
	}
	hookOnly := ob.ComputeReport(entries[:4], ob.DefaultSLOs(ob.DefaultPolicies()))
	cmp := ob.Compare(r, hookOnly)
	if text := cmp.String(); !strings.Contains(text, "old heartbeat: 8 turns") || !strings.Contains(text, "new hook: 4 turns") {
		t.Errorf("comparison text lacks the turns by mode:\n%s", text)
	}
}
