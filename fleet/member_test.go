package fleet

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	ob "github.com/wakewheel/wakewheel/obligations"
)

func TestPostToALaneHomedElsewhereIsForwardedAndImportedOnce(t *testing.T) {
	b := startBroker(t)
	la, lb := newMemLocal(), newMemLocal()
	ma := member(t, testOptions(b.URL(), "a.example"), la, t.TempDir(), nil)
	mb := member(t, testOptions(b.URL(), "b"), lb, t.TempDir(), nil)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	eventually(t, 10*time.Second, "stream ready", func() bool { return ma.conn.ready.Load() && mb.conn.ready.Load() })

	if _, err := ma.OpenLane(ctx, "work.x"); err != nil {
		t.Fatal(err)
	}
	if _, err := mb.OpenLane(ctx, "work.x"); !errors.Is(err, ErrHomedElsewhere) || !strings.Contains(err.Error(), "a.example") {
		t.Fatalf("opening a lane homed on a.example from b: %v", err)
	}
	for i := range 20 {
		wait := ""
		if i%2 == 0 {
			wait = Forwarded
		}
		o := ob.Obligation{Lane: "work.x", ID: fmt.Sprintf("p%d", i), Class: ob.ClassHuman, Body: "hi"}
		_, route, err := mb.Post(ctx, o, false, wait)
		if err != nil {
			t.Fatal(err)
		}
		if want := map[bool]string{true: Forwarded, false: Queued}[wait != ""]; route != want {
			t.Fatalf("post %d answered %q, want %q", i, route, want)
		}
		if i == 3 { // a re-post of an id is absorbed by the home
			if _, _, err := mb.Post(ctx, o, false, Forwarded); err != nil {
				t.Fatal(err)
			}
		}
	}
	eventually(t, 10*time.Second, "20 imported", func() bool { return len(la.lane("work.x")) == 20 })
	time.Sleep(300 * time.Millisecond)
	got := la.lane("work.x")
	seen := map[string]bool{}
	for i, o := range got {
		if o.Seq != uint64(i+1) || seen[o.ID] {
			t.Fatalf("lane at %d: seq %d id %s (duplicate %v)", i, o.Seq, o.ID, seen[o.ID])
		}
		seen[o.ID] = true
	}
	if n := mb.outbox.Len(); n != 0 {
		t.Fatalf("outbox still holds %d", n)
	}
	// A post on the home goes straight to the local lane.
	if _, route, err := ma.Post(ctx, ob.Obligation{Lane: "work.x", ID: "local", Class: ob.ClassHuman, Body: "x"}, false, ""); err != nil || route != PostedLocal {
		t.Fatalf("post on the home: %s %v", route, err)
	}
	// A lane homed nowhere is refused without create, homed here with it.
	if _, _, err := mb.Post(ctx, ob.Obligation{Lane: "nowhere", ID: "1", Class: ob.ClassHuman, Body: "x"}, false, ""); !errors.Is(err, ob.ErrUnknownLane) {
		t.Fatalf("post to a lane homed nowhere: %v", err)
	}
	if _, route, err := mb.Post(ctx, ob.Obligation{Lane: "nowhere", ID: "1", Class: ob.ClassHuman, Body: "x"}, true, ""); err != nil || route != PostedLocal {
		t.Fatalf("post with create: %s %v", route, err)
	}
}

func TestMalformedMessagesAreTerminatedAndAlerted(t *testing.T) {
	b := startBroker(t)
	la := newMemLocal()
	alerts := make(chan string, 10)
	ma := member(t, testOptions(b.URL(), "a"), la, t.TempDir(), alerts)
	eventually(t, 10*time.Second, "stream ready", ma.conn.ready.Load)
	ctx := context.Background()
	if _, err := ma.OpenLane(ctx, "w"); err != nil {
		t.Fatal(err)
	}
	nc, err := nats.Connect(b.URL())
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, _ := jetstream.New(nc)
	good, _ := json.Marshal(Envelope{V: 1, Lane: "w", ID: "ok", Class: ob.ClassHuman, Body: "b", Home: "a", Origin: "x"})
	bogus, _ := json.Marshal(Envelope{V: 1, Lane: "w", ID: "bad-class", Class: "bogus", Body: "b", Home: "a", Origin: "x"})
	wrong, _ := json.Marshal(Envelope{V: 1, Lane: "other", ID: "mismatch", Class: ob.ClassHuman, Body: "b", Home: "a", Origin: "x"})
	for _, p := range [][]byte{[]byte("not json"), bogus, wrong, good} {
		if _, err := js.Publish(ctx, Subject("a", "w", "x"), p); err != nil {
			t.Fatal(err)
		}
	}
	for range 3 {
		select {
		case a := <-alerts:
			if !strings.HasPrefix(a, "fleet_malformed") {
				t.Fatalf("alert %q", a)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("no alert for a malformed message")
		}
	}
	eventually(t, 5*time.Second, "the good one imported", func() bool { return len(la.lane("w")) == 1 })
	time.Sleep(2500 * time.Millisecond) // past the ack wait: terminated ones never come back
	select {
	case a := <-alerts:
		t.Fatalf("a terminated message came back: %s", a)
	default:
	}
	if n := ma.terminated.Load(); n != 3 {
		t.Fatalf("terminated %d, want 3", n)
	}
}

func TestOutboxIsBoundedAndSurvivesTheBrokerBeingDown(t *testing.T) {
	// A broker address nobody listens on: the member starts, and queues.
	opts := testOptions(fmt.Sprintf("nats://127.0.0.1:%d", freePort(t)), "b")
	opts.OutboxMax = 3
	lb := newMemLocal()
	dir := t.TempDir()
	mb := member(t, opts, lb, dir, nil)
	mb.homes.learn("far", "a") // learnt before the partition
	ctx := context.Background()
	for i := range 3 {
		if _, route, err := mb.Post(ctx, ob.Obligation{Lane: "far", ID: fmt.Sprint(i), Class: ob.ClassHuman, Body: "x"}, false, ""); err != nil || route != Queued {
			t.Fatalf("post %d: %s %v", i, route, err)
		}
	}
	_, _, err := mb.Post(ctx, ob.Obligation{Lane: "far", ID: "3", Class: ob.ClassHuman, Body: "x"}, false, "")
	if !errors.Is(err, ErrOutboxFull) || !strings.Contains(err.Error(), "fleet.outbox.max") {
		t.Fatalf("post past the bound: %v", err)
	}
	if _, _, err := mb.Post(ctx, ob.Obligation{Lane: "unknown", ID: "1", Class: ob.ClassHuman, Body: "x"}, false, ""); !errors.Is(err, ErrUnreachable) {
		t.Fatalf("post to a lane whose home is unknown, broker down: %v", err)
	}
}
