package obligations_test

import (
	"bytes"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	ob "github.com/wakewheel/wakewheel/obligations"
)

func TestLedgerJSONLRoundTrip(t *testing.T) {
	entries := []ob.Entry{
		{Kind: ob.EntryPost, Lane: "a", Seq: 1, ID: "h1", Class: ob.ClassHuman, Canary: true, Event: t0, At: t0},
		{Kind: ob.EntryDelivery, Lane: "a", Seq: 1, WakeID: "a@1", At: t0.Add(time.Second)},
		{Kind: ob.EntryConsumption, Lane: "a", Seq: 1, ID: "h1", Class: ob.ClassHuman, Event: t0, At: t0.Add(time.Minute)},
	}
	var buf bytes.Buffer
	if err := ob.EncodeJSONL(&buf, entries); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(buf.String(), "\n"); n != 3 {
		t.Fatalf("%d lines:\n%s", n, buf.String())
	}
	got, err := ob.DecodeJSONL(strings.NewReader("\n" + buf.String() + "\n  \n"))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, entries) {
		t.Fatalf("round trip:\n got %+v\nwant %+v", got, entries)
	}
}

func TestDecodeJSONLRejectsBadLines(t *testing.T) {
	cases := map[string]string{
		"line 2: invalid character":        `{"kind":"post","lane":"a","id":"x","at":"2026-01-05T09:00:00Z"}` + "\n{not json",
		`line 1: unknown kind "heartbeat"`: `{"kind":"heartbeat","lane":"a","at":"2026-01-05T09:00:00Z"}`,
		"line 1: no time":                  `{"kind":"noop","lane":"a"}`,
		"line 1: no lane":                  `{"kind":"noop","at":"2026-01-05T09:00:00Z"}`,
		`line 1: unknown class "pager"`:    `{"kind":"post","lane":"a","id":"x","class":"pager","at":"2026-01-05T09:00:00Z"}`,
		"line 1: a post entry needs an id": `{"kind":"post","lane":"a","at":"2026-01-05T09:00:00Z"}`,
	}
	for want, in := range cases {
		_, err := ob.DecodeJSONL(strings.NewReader(in))
		if !errors.Is(err, ob.ErrBadLedger) || !strings.Contains(err.Error(), want) {
			t.Errorf("DecodeJSONL = %v, want ErrBadLedger containing %q", err, want)
		}
	}
}

// ledger builds a small ledger: n human obligations, each consumed after
// lat[i], and noops no-op wakes.
func ledger(lane string, lat []time.Duration, noops int, canaryLate bool) []ob.Entry {
	var out []ob.Entry
	for i, d := range lat {
		id := lane + string(rune('a'+i))
		at := t0.Add(time.Duration(i) * time.Hour)
		out = append(out,
			ob.Entry{Kind: ob.EntryPost, Lane: lane, Seq: uint64(i + 1), ID: id, Class: ob.ClassHuman, Event: at, At: at},
			ob.Entry{Kind: ob.EntryDelivery, Lane: lane, Seq: uint64(i + 1), At: at},
			ob.Entry{Kind: ob.EntryConsumption, Lane: lane, Seq: uint64(i + 1), ID: id, Class: ob.ClassHuman, Event: at, At: at.Add(d)},
			ob.Entry{Kind: ob.EntryAction, Lane: lane, Seq: uint64(i + 1), ID: id, Class: ob.ClassHuman, Action: "replied", Event: at, At: at.Add(d)},
		)
	}
	for i := range noops {
		out = append(out, ob.Entry{Kind: ob.EntryNoop, Lane: lane, At: t0.Add(time.Duration(i) * time.Minute)})
	}
	canary := ob.Entry{Kind: ob.EntryPost, Lane: lane, ID: "canary-1", Class: ob.ClassHuman, Canary: true, Event: t0, At: t0}
	out = append(out, canary)
	done := canary
	done.Kind, done.At = ob.EntryConsumption, t0.Add(time.Minute)
	if canaryLate {
		done.At = t0.Add(time.Hour) // human SLO is 15m
	}
	return append(out, done)
}

func TestReportSafetyVector(t *testing.T) {
	lat := make([]time.Duration, 20)
	for i := range lat {
		lat[i] = time.Duration(i+1) * time.Minute // 1m..20m: p95 (19th of 20) is 19m
	}
	r := ob.ComputeReport(ledger("a", lat, 0, false), ob.DefaultSLOs(ob.DefaultPolicies()))
	m, _ := r.Metric("p95_event_to_consumed[human]")
	if m.Value != (19*time.Minute).Seconds() || m.N != 21 || m.Pass {
		t.Fatalf("p95 human: %+v (want 19m over 21 samples, failing the 15m SLO)", m)
	}
	if m, _ := r.Metric("p95_event_to_action[human]"); m.Value != (19 * time.Minute).Seconds() {
		t.Fatalf("p95 action: %+v", m)
	}
	if m, _ := r.Metric("p95_event_to_consumed[peer]"); m.N != 0 || !m.Pass {
		t.Fatalf("no peer samples should pass vacuously: %+v", m)
	}
	if r.Pass {
		t.Fatal("report passes with a p95 over SLO")
	}
	if !strings.Contains(squash(r.String()), "time from post to consumed, human (95th percentile) 19m0s at most 15m0s 21 obligations FAIL") {
		t.Fatalf("table:\n%s", r)
	}

	fast := []time.Duration{time.Minute, 2 * time.Minute}
	r = ob.ComputeReport(ledger("a", fast, 1, true), ob.DefaultSLOs(ob.DefaultPolicies()))
	if m, _ := r.Metric("canary_false_negatives"); m.Value != 1 || m.Pass {
		t.Fatalf("late canary: %+v", m)
	}
	if m, _ := r.Metric("noop_rate"); m.Value != 1.0/3 || m.Pass {
		t.Fatalf("noop rate: %+v", m)
	}

	// An unconsumed canary counts only once its SLO has passed.
	entries := []ob.Entry{
		{Kind: ob.EntryPost, Lane: "a", ID: "c", Class: ob.ClassHuman, Canary: true, At: t0},
		{Kind: ob.EntryNoop, Lane: "b", At: t0.Add(10 * time.Minute)},
	}
	r = ob.ComputeReport(entries, ob.DefaultSLOs(ob.DefaultPolicies()))
	if m, _ := r.Metric("canary_false_negatives"); m.Value != 0 {
		t.Fatalf("pending canary counted: %+v", m)
	}
	entries[1].At = t0.Add(16 * time.Minute)
	r = ob.ComputeReport(entries, ob.DefaultSLOs(ob.DefaultPolicies()))
	if m, _ := r.Metric("canary_false_negatives"); m.Value != 1 {
		t.Fatalf("overdue canary not counted: %+v", m)
	}

	entries = append(entries, ob.Entry{Kind: ob.EntryReconcile, Lane: "a", At: t0})
	if m, _ := ob.ComputeReport(entries, ob.DefaultSLOs(ob.DefaultPolicies())).Metric("reconciles"); m.Value != 1 || m.Pass {
		t.Fatalf("reconciles: %+v", m)
	}
}

func TestCompareAndParity(t *testing.T) {
	slos := ob.DefaultSLOs(ob.DefaultPolicies())
	oldL := ledger("a", []time.Duration{time.Minute, 20 * time.Minute}, 40, false)
	newL := ledger("a", []time.Duration{time.Minute, 2 * time.Minute}, 0, false)
	c := ob.Compare(ob.ComputeReport(oldL, slos), ob.ComputeReport(newL, slos))
	if !c.CutOver || len(c.Reasons) != 0 {
		t.Fatalf("comparison blocks: %v\n%s", c.Reasons, c)
	}
	if !strings.Contains(squash(c.String()), "noop_rate 0.952 0.000 <= 0.050 pass") {
		t.Fatalf("table:\n%s", c)
	}
	c = ob.Compare(ob.ComputeReport(newL, slos), ob.ComputeReport(oldL, slos))
	if c.CutOver || !strings.Contains(c.String(), "new noop_rate 0.952 is above the old 0.000") {
		t.Fatalf("reverse comparison:\n%s", c)
	}

	if missing := ob.Parity(oldL, newL); len(missing) != 0 {
		t.Fatalf("parity: %v", missing)
	}
	extra := append(oldL, ob.Entry{Kind: ob.EntryPost, Lane: "b", Seq: 3, At: t0})
	if missing := ob.Parity(extra, newL); !reflect.DeepEqual(missing, []string{"b/#3"}) {
		t.Fatalf("parity: %v", missing)
	}
}

// squash collapses runs of spaces, so table checks do not depend on widths.
func squash(s string) string {
	var lines []string
	for line := range strings.Lines(s) {
		lines = append(lines, strings.Join(strings.Fields(line), " "))
	}
	return strings.Join(lines, "\n")
}
