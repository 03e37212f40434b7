package fleet

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	ob "github.com/wakewheel/wakewheel/obligations"
)

// TestFleetStatusShowsWhatWaitsPerLane: posts from b to two lanes homed on
// a, while a cannot commit them, wait in the broker; fleet status counts
// them per lane (not per home), and once a imports them nothing waits.
func TestFleetStatusShowsWhatWaitsPerLane(t *testing.T) {
	b := startBroker(t)
	la, lb := newMemLocal(), newMemLocal()
	ma := member(t, testOptions(b.URL(), "a"), la, t.TempDir(), nil)
	mb := member(t, testOptions(b.URL(), "b"), lb, t.TempDir(), nil)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	eventually(t, 10*time.Second, "stream ready", func() bool { return ma.conn.ready.Load() && mb.conn.ready.Load() })
	for _, lane := range []string{"x", "y.z", "idle"} {
		if _, err := ma.OpenLane(ctx, lane); err != nil {
			t.Fatal(err)
		}
	}
	la.mu.Lock()
	la.fail = errors.New("disk full") // a's commits fail: nothing is acked
	la.mu.Unlock()
	want := map[string]uint64{"x": 3, "y.z": 2, "idle": 0}
	for lane, n := range want {
		for i := range n {
			o := ob.Obligation{Lane: lane, ID: fmt.Sprintf("%s-%d", lane, i), Class: ob.ClassHuman, Body: "hi"}
			if _, route, err := mb.Post(ctx, o, false, Forwarded); err != nil || route != Forwarded {
				t.Fatalf("post to %s: %s %v", lane, route, err)
			}
		}
	}
	waiting := func() map[string]uint64 {
		st, err := ReadFleet(ctx, mb.conn, time.Now())
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]uint64{}
		for _, l := range st.Lanes {
			if l.WaitingError != "" {
				t.Fatalf("lane %s: %s", l.Lane, l.WaitingError)
			}
			out[l.Lane] = l.Waiting
		}
		return out
	}
	got := waiting()
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("waiting in the broker per lane %v, want %v", got, want)
	}
	la.mu.Lock()
	la.fail = nil
	la.mu.Unlock()
	eventually(t, 20*time.Second, "all imported", func() bool { return len(la.lane("x")) == 3 && len(la.lane("y.z")) == 2 })
	eventually(t, 10*time.Second, "nothing waits", func() bool {
		for _, n := range waiting() {
			if n != 0 {
				return false
			}
		}
		return true
	})
}

// TestFleetStatusTextShowsSafetyAndWaiting: the terminal view names each
// host's safety verdict and checks, and each lane's wait in the broker.
func TestFleetStatusTextShowsSafetyAndWaiting(t *testing.T) {
	now := time.Date(2026, 1, 5, 12, 0, 0, 0, time.UTC)
	rep := ob.ComputeReport([]ob.Entry{
		{Kind: ob.EntryPost, Lane: "x", ID: "1", Class: ob.ClassHuman, At: now.Add(-time.Hour)},
		{Kind: ob.EntryDelivery, Lane: "x", At: now.Add(-time.Hour)},
		{Kind: ob.EntryNoop, Lane: "x", At: now.Add(-time.Hour)},
	}, ob.DefaultSLOs(nil))
	st := FleetStatus{At: now,
		Hosts: []HostView{{HostBeacon: HostBeacon{Host: "a", Version: "v1.2", Safety: &rep}}, {HostBeacon: HostBeacon{Host: "b"}}},
		Lanes: []LaneSummary{{Lane: "x", Home: "a", Reported: true, Waiting: 7}, {Lane: "y", Home: "b", WaitingError: "unreachable"}}}
	text := st.Text()
	t.Log("\n" + text)
	for _, want := range []string{"v1.2", "a                FAIL     1 posts", "12 checks, 1 failing: noop_rate=0.500/0.050", "(not in its beacon yet)",
		"WAITING", " 7 ", "waiting in the broker for b unknown: unreachable"} {
		if !strings.Contains(text, want) {
			t.Errorf("fleet status text lacks %q", want)
		}
	}
}

// A lane whose published state could not be read says why, not that its
// home never published it.
func TestFleetStatusTextSaysWhyALaneIsNotReported(t *testing.T) {
	st := FleetStatus{Lanes: []LaneSummary{{Lane: "x", Home: "a"}}}
	if text := st.Text(); !strings.Contains(text, "(its home has not published it)") {
		t.Errorf("a lane never published:\n%s", text)
	}
	st.LanesError = "fleet: the broker is unreachable: listing lanes: timeout"
	if text := st.Text(); !strings.Contains(text, "could not be read: "+st.LanesError) || strings.Contains(text, "has not published") {
		t.Errorf("a lane whose state could not be read:\n%s", text)
	}
}
