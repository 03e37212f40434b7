package wakes

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	ob "github.com/wakewheel/wakewheel/obligations"
	"github.com/wakewheel/wakewheel/store"
)

// flaky fails writes while fail is set.
type flaky struct {
	Store
	fail atomic.Bool
}

func (f *flaky) Write(sync bool, ops ...store.Op) error {
	if f.fail.Load() {
		return errors.New("injected: disk full")
	}
	return f.Store.Write(sync, ops...)
}

func TestFailedWriteReloadsTheDurableState(t *testing.T) {
	r := newRig(t, fastPolicies())
	var fl *flaky
	r.wrap = func(s Store) Store { fl = &flaky{Store: s}; return fl }
	var failures atomic.Int32
	r.opts.OnFailure = func(string) { failures.Add(1) }
	r.start()
	defer func() { r.stop(false) }()
	ctx := ctxT(t)
	r.svc.OpenLane(ctx, "dev")
	r.svc.Post(ctx, human("dev", "a", "stored"), false)

	fl.fail.Store(true)
	if _, err := r.svc.Post(ctx, human("dev", "b", "lost"), false); !errors.Is(err, ErrStore) {
		t.Fatalf("post on a failing store: %v, want ErrStore", err)
	}
	fl.fail.Store(false)
	if failures.Load() == 0 {
		t.Error("the failure was not reported")
	}
	st, _ := r.svc.Lanes(ctx)
	if st[0].Head != 1 {
		t.Fatalf("head %d after the failed post, want 1 (the state must follow the store)", st[0].Head)
	}
	// The retry of the failed post is a new post, not a duplicate of
	// something that was never stored.
	o, err := r.svc.Post(ctx, human("dev", "b", "lost"), false)
	if err != nil || o.Duplicate || o.Seq != 2 {
		t.Fatalf("retry: %+v %v", o, err)
	}
	r.restart()
	if st, _ := r.svc.Lanes(ctx); st[0].Head != 2 {
		t.Fatalf("head %d after restart, want 2", st[0].Head)
	}
}

func TestWakeHookRunsPerLaneAndCoalesces(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(dir, "hook.log")
	r := newRig(t, fastPolicies())
	r.opts.Hook = func(lane string) string {
		if lane != "dev" {
			return ""
		}
		return `echo "$WAKEWHEEL_LANE $WAKEWHEEL_WAKE_ID $WAKEWHEEL_WAKE_REASON $WAKEWHEEL_WAKE_CLASS $WAKEWHEEL_HEAD" >> ` + log + `; sleep 0.2`
	}
	r.start()
	defer func() { r.stop(false) }()
	ctx := ctxT(t)
	r.svc.OpenLane(ctx, "dev")
	r.svc.OpenLane(ctx, "quiet")
	r.svc.Post(ctx, human("quiet", "q", "no hook here"), false)
	for i := range 5 {
		r.svc.Post(ctx, human("dev", string(rune('a'+i)), "x"), false)
	}
	read := func() []string {
		b, _ := os.ReadFile(log)
		return strings.Split(strings.TrimSpace(string(b)), "\n")
	}
	waitFor(t, "two hook runs", func() bool { return len(read()) >= 2 })
	time.Sleep(300 * time.Millisecond)
	lines := read()
	// One run for the first wake, one more for the five that came during it
	// (with the latest), then re-wakes every 80 ms cadence: at most a few.
	if lines[0] != "dev dev@1 post human 1" {
		t.Errorf("first run saw %q", lines[0])
	}
	if !strings.HasPrefix(lines[1], "dev dev@5 ") {
		t.Errorf("second run saw %q, want the latest wake dev@5", lines[1])
	}
	if len(lines) > 5 {
		t.Errorf("%d hook runs for 5 posts in 0.5 s: not coalesced", len(lines))
	}
	for _, l := range lines {
		if strings.HasPrefix(l, "quiet") {
			t.Errorf("a lane without a hook ran one: %q", l)
		}
	}
}

func TestWakeHookFailureIsAlerted(t *testing.T) {
	r := newRig(t, fastPolicies())
	r.opts.Hook = func(string) string { return "echo boom >&2; exit 3" }
	got := make(chan string, 4)
	r.opts.OnFailure = func(msg string) { got <- msg }
	r.start()
	defer func() { r.stop(false) }()
	ctx := ctxT(t)
	r.svc.OpenLane(ctx, "dev")
	r.svc.Post(ctx, human("dev", "a", "x"), false)
	select {
	case msg := <-got:
		if !strings.Contains(msg, "wake_hook_failed") || !strings.Contains(msg, "boom") {
			t.Errorf("failure message %q", msg)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("a failing hook was not reported")
	}
	waitFor(t, "the alert in the store", func() bool {
		as, _ := r.db.Alerts(1)
		return len(as) == 1 && as[0].Code == "wake_hook_failed"
	})
}

func TestCheckCanaries(t *testing.T) {
	t0 := time.Date(2026, 1, 5, 9, 0, 0, 0, time.UTC)
	slos := ob.DefaultSLOs(ob.DefaultPolicies()) // human 15m
	post := func(id string, at time.Time) ob.Entry {
		return ob.Entry{Kind: ob.EntryPost, Lane: "a", ID: id, Class: ob.ClassHuman, Canary: true, At: at, Event: at}
	}
	consume := func(id string, at time.Time) ob.Entry {
		return ob.Entry{Kind: ob.EntryConsumption, Lane: "a", ID: id, Class: ob.ClassHuman, At: at}
	}
	entries := []ob.Entry{
		post("in-time", t0), consume("in-time", t0.Add(10*time.Minute)),
		post("late", t0), consume("late", t0.Add(20*time.Minute)),
		post("missing", t0),
		post("pending", t0.Add(25*time.Minute)),
		{Kind: ob.EntryPost, Lane: "a", ID: "real", Class: ob.ClassHuman, At: t0},
	}
	r := CheckCanaries(entries, slos, t0.Add(30*time.Minute))
	want := CanaryReport{Posted: 4, InTime: 1, Late: 1, Missing: 1, Pending: 1, FalseNegatives: 2, Failed: []string{"a/late", "a/missing"}}
	if r.Posted != want.Posted || r.InTime != want.InTime || r.Late != want.Late || r.Missing != want.Missing ||
		r.Pending != want.Pending || r.FalseNegatives != want.FalseNegatives || strings.Join(r.Failed, ",") != "a/late,a/missing" {
		t.Fatalf("got %+v, want %+v", r, want)
	}
	c := Canary("a", ob.ClassPeer, t0, 1)
	if !c.Canary || !c.Locator.Hard() {
		t.Fatalf("a peer canary must carry a hard locator: %+v", c)
	}
}
