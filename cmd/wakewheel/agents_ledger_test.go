package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/wakewheel/wakewheel/api"
	"github.com/wakewheel/wakewheel/configs"
	"github.com/wakewheel/wakewheel/lanerun"
	ob "github.com/wakewheel/wakewheel/obligations"
)

// TestLedgerShowsAgentTurnsAndComparesAHeartbeatLedger: the daemon's
// ledger holds the turns its hooks caused; `ledger report` shows turns per
// hour and the no-op share by lane and mode; `ledger compare` sets an
// imported heartbeat ledger (JSONL) beside it.
func TestLedgerShowsAgentTurnsAndComparesAHeartbeatLedger(t *testing.T) {
	h := newHome(t)
	d := h.start()
	defer d.stop(t)
	c := h.client()
	ctx := context.Background()
	c.OpenLane(ctx, "rev")
	for i := 1; i <= 2; i++ {
		if _, err := c.Post(ctx, api.PostRequest{Lane: "rev", Class: "human", ID: fmt.Sprint("m", i), Body: "task"}); err != nil {
			t.Fatal(err)
		}
		out, _, _ := h.hookEvent(t, "rev", map[string]any{"session_id": "s", "hook_event_name": "Stop"}, "--idle", "1s")
		if decodeAnswer(t, out).Decision != "block" {
			t.Fatalf("no block: %q", out)
		}
		c.Ack(ctx, "rev", uint64(i), "")
	}
	out, err := h.run("ledger", "report")
	row := regexp.MustCompile(`(?m)^\s+rev\s+hook\s+2\s+0\s+[0-9.]+\s+0\.000$`)
	if err != nil || !strings.Contains(out, "agent turns:") || !row.MatchString(out) {
		t.Fatalf("ledger report: %v (want a row: rev hook, 2 turns, 0 no-op)\n%s", err, out)
	}
	share := regexp.MustCompile(`(?m)^\s*agent turns that found nothing to do\s+0\.000\s+at most 0\.050\s+2 turns\s+pass$`)
	if !share.MatchString(out) {
		t.Fatalf("the report lacks the no-op share of turns:\n%s", out)
	}

	// A heartbeat ledger, as an old mechanism would export it: the same two
	// obligations, 16 half-hourly wakes of which 14 found nothing.
	t0 := time.Now().Add(-8 * time.Hour).UTC()
	var hb []ob.Entry
	for i := 1; i <= 2; i++ {
		hb = append(hb, ob.Entry{Kind: ob.EntryPost, Lane: "rev", ID: fmt.Sprint("m", i), Class: ob.ClassHuman, At: t0.Add(time.Duration(i) * time.Hour)})
	}
	for k := 1; k <= 16; k++ {
		at := t0.Add(time.Duration(k) * 30 * time.Minute)
		work := k == 3 || k == 5
		hb = append(hb, ob.Entry{Kind: ob.EntryTurn, Lane: "rev", Mode: ob.TurnHeartbeat, Work: work, At: at})
		if work {
			hb = append(hb, ob.Entry{Kind: ob.EntryConsumption, Lane: "rev", ID: fmt.Sprint("m", k/2), Class: ob.ClassHuman, At: at})
		}
	}
	path := filepath.Join(h.dir, "heartbeat.jsonl")
	f, _ := os.Create(path)
	ob.EncodeJSONL(f, hb)
	f.Close()
	out, err = h.run("ledger", "compare", path, "daemon")
	if err != nil {
		t.Fatalf("ledger compare: %v\n%s", err, out)
	}
	for _, want := range []string{"agent turns: old 16", "no-op share 0.875", "old heartbeat: 16 turns", "new hook: 2 turns", "source parity: 0"} {
		if !strings.Contains(out, want) {
			t.Errorf("ledger compare lacks %q:\n%s", want, out)
		}
	}
}

// The pane prompt's registered default is the one lanerun falls back to.
func TestPanePromptDefaultIsOne(t *testing.T) {
	for _, s := range configs.Registry() {
		if s.Key == "agents.prompt" && s.Default != lanerun.DefaultPrompt {
			t.Fatalf("agents.prompt defaults to %q, lanerun.DefaultPrompt is %q", s.Default, lanerun.DefaultPrompt)
		}
	}
}
