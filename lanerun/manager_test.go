package lanerun

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/syndtr/goleveldb/leveldb/storage"
	"github.com/wakewheel/wakewheel/internal/clock"
	"github.com/wakewheel/wakewheel/internal/supervise"
	ob "github.com/wakewheel/wakewheel/obligations"
	"github.com/wakewheel/wakewheel/store"
)

// fakeLanes is the obligations service over a real (pure) State.
type fakeLanes struct {
	mu    sync.Mutex
	st    *ob.State
	clk   clock.Clock
	turns []ob.Entry
}

func (f *fakeLanes) Digest(_ context.Context, lane, who string) (ob.Digest, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.st.Digest(lane, who, f.clk.Now())
}

func (f *fakeLanes) Deliver(_ context.Context, lane, who string) (ob.Digest, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	d, _, err := f.st.Deliver(lane, who, f.clk.Now())
	return d, err
}

func (f *fakeLanes) Turn(_ context.Context, lane string, m ob.TurnMode, wake string, work bool) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	eff, err := f.st.Turn(lane, m, wake, work, f.clk.Now())
	f.turns = append(f.turns, eff.Ledger...)
	return err
}

func (f *fakeLanes) post(t *testing.T, lane, id string) ob.Wake {
	t.Helper()
	f.mu.Lock()
	defer f.mu.Unlock()
	_, eff, err := f.st.Post(ob.Obligation{Lane: lane, ID: id, Class: ob.ClassHuman, Body: "task " + id}, f.clk.Now())
	if err != nil {
		t.Fatal(err)
	}
	return eff.Wakes[0]
}

func (f *fakeLanes) ack(lane string, upto uint64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.st.Ack(lane, upto, "", f.clk.Now())
}

// fakeExec stands in for the agent command: each call waits for a release
// (so a test controls when a run ends) and then acks or fails.
type fakeExec struct {
	mu      sync.Mutex
	calls   []supervise.Command
	running int
	most    int
	release chan supervise.Result
	onRun   func(c supervise.Command)
}

func (e *fakeExec) run(ctx context.Context, c supervise.Command) supervise.Result {
	e.mu.Lock()
	e.calls = append(e.calls, c)
	e.running++
	e.most = max(e.most, e.running)
	e.mu.Unlock()
	if e.onRun != nil {
		e.onRun(c)
	}
	var r supervise.Result
	select {
	case r = <-e.release:
	case <-ctx.Done():
		r = supervise.Result{ExitCode: -1, Err: ctx.Err()}
	}
	e.mu.Lock()
	e.running--
	e.mu.Unlock()
	return r
}

func (e *fakeExec) count() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return len(e.calls)
}

func newManager(t *testing.T, cfg Config, ex *fakeExec) (*Manager, *fakeLanes, *clock.Fake, chan string) {
	t.Helper()
	clk := clock.NewFake(time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC))
	st, _ := ob.New(ob.DefaultPolicies())
	lanes := &fakeLanes{st: st, clk: clk}
	db, err := store.OpenStorage(storage.NewMemStorage(), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	alerts := make(chan string, 10)
	m, err := New(Options{Lanes: lanes, Store: db, Clock: clk, Config: func(string) Config { return cfg },
		Configured: func() []string { return []string{"a"} }, Exec: ex.run, RetryBase: time.Second, RetryCap: 8 * time.Second,
		RetryAttempts: 3, Alert: func(code, key, msg string) { alerts <- code + " " + msg }})
	if err != nil {
		t.Fatal(err)
	}
	lanes.mu.Lock()
	lanes.st.Open("a", clk.Now())
	lanes.mu.Unlock()
	m.Start()
	t.Cleanup(m.Close)
	return m, lanes, clk, alerts
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for end := time.Now().Add(5 * time.Second); time.Now().Before(end); time.Sleep(time.Millisecond) {
		if cond() {
			return
		}
	}
	t.Fatalf("timed out waiting for %s", what)
}

func TestRunnerCoalescesWakesDuringARun(t *testing.T) {
	ex := &fakeExec{release: make(chan supervise.Result)}
	m, lanes, _, _ := newManager(t, Config{Agent: "agent"}, ex)
	m.Wake(lanes.post(t, "a", "1"))
	waitFor(t, "the first run", func() bool { return ex.count() == 1 })
	for i := 2; i <= 5; i++ { // four wakes while it runs
		m.Wake(lanes.post(t, "a", string(rune('0'+i))))
	}
	lanes.ack("a", 1) // the run consumed what it was given
	ex.release <- supervise.Result{}
	waitFor(t, "one more run for the rest", func() bool { return ex.count() == 2 })
	if in := stdinOf(t, ex.calls[1]); !strings.Contains(in, "task 5") || strings.Contains(in, "task 1\n") {
		t.Fatalf("second run's digest:\n%s", in)
	}
	lanes.ack("a", 5)
	ex.release <- supervise.Result{}
	time.Sleep(20 * time.Millisecond)
	if ex.count() != 2 || ex.most != 1 {
		t.Fatalf("%d runs (most at once %d), want 2 and 1", ex.count(), ex.most)
	}
	// No work, no run: a wake for a lane with nothing unconsumed.
	m.kick("a", nil)
	time.Sleep(20 * time.Millisecond)
	if ex.count() != 2 || len(lanes.turns) != 2 {
		t.Fatalf("a kick with nothing unconsumed ran (%d runs, %d turns)", ex.count(), len(lanes.turns))
	}
}

func TestRunnerBacksOffAndAlertsWhenCrashLooping(t *testing.T) {
	ex := &fakeExec{release: make(chan supervise.Result, 10)}
	m, lanes, clk, alerts := newManager(t, Config{Agent: "agent"}, ex)
	for range 3 {
		ex.release <- supervise.Result{ExitCode: 2, Err: errString("exit status 2")}
	}
	m.Wake(lanes.post(t, "a", "1"))
	waitFor(t, "the first run", func() bool { return ex.count() == 1 })
	waitFor(t, "the failure recorded", func() bool { st := m.Status(); return st[0].Runner.Failures == 1 && !st[0].Runner.Running })
	m.Wake(lanes.post(t, "a", "2")) // inside the 1s backoff: waits for it
	time.Sleep(20 * time.Millisecond)
	if ex.count() != 1 {
		t.Fatal("a failing runner ran again inside its backoff")
	}
	clk.Advance(time.Second)
	waitFor(t, "the run after the backoff", func() bool { return ex.count() == 2 })
	waitFor(t, "the second failure", func() bool { return m.Status()[0].Runner.Failures == 2 })
	m.Wake(lanes.post(t, "a", "3"))
	clk.Advance(2 * time.Second) // the doubled backoff
	waitFor(t, "the third run", func() bool { return ex.count() == 3 })
	select {
	case a := <-alerts:
		if !strings.HasPrefix(a, "agent_run_failing") || !strings.Contains(a, "3 times in a row") {
			t.Fatalf("alert %q", a)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no alert after 3 failures in a row")
	}
}

func TestBusySessionLeavesTheLaneToItsHook(t *testing.T) {
	ex := &fakeExec{release: make(chan supervise.Result, 10)}
	m, lanes, clk, _ := newManager(t, Config{Agent: "agent"}, ex)
	ctx := context.Background()
	if _, err := m.Report(ctx, "a", Report{Session: &SessionReport{Host: "claude-code", ID: "s1", CWD: "/w", State: SessionWaiting, Wait: time.Minute}}); err != nil {
		t.Fatal(err)
	}
	m.Wake(lanes.post(t, "a", "1"))
	time.Sleep(20 * time.Millisecond)
	if ex.count() != 0 {
		t.Fatalf("the runner ran while the session's Stop hook was waiting: %+v %+v", ex.calls[0].Line, m.Status())
	}
	// The hook's idle window ends: the session rests and the runner takes over, resuming it by id.
	ex.release <- supervise.Result{}
	clk.Advance(time.Second)
	if _, err := m.Report(ctx, "a", Report{Session: &SessionReport{Host: "claude-code", ID: "s1", State: SessionResting}}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the runner after the session rested", func() bool { return ex.count() == 1 })
	env := strings.Join(ex.calls[0].Env, "\n")
	if !strings.Contains(env, "WAKEWHEEL_SESSION_ID=s1") || !strings.Contains(env, "WAKEWHEEL_SESSION_CWD=/w") || !strings.Contains(env, "WAKEWHEEL_HEAD=1") {
		t.Fatal("the run lacks the session to resume")
	}
	if s, _ := m.Session("a"); s.State != SessionResting || s.CWD != "/w" {
		t.Fatalf("session %+v", s)
	}
	if _, err := m.Report(ctx, "a", Report{Session: &SessionReport{Host: "claude-code", ID: "s1", State: "dozing"}}); err == nil {
		t.Fatal("a bad state was accepted")
	}
}

func TestPanePromptsOncePerWake(t *testing.T) {
	var typed []string
	ex := &fakeExec{release: make(chan supervise.Result, 100)}
	ex.onRun = func(c supervise.Command) {
		if len(c.Argv) > 1 && c.Argv[1] == "send-keys" && c.Argv[len(c.Argv)-1] != "Enter" {
			typed = append(typed, c.Argv[len(c.Argv)-1])
		}
		ex.release <- supervise.Result{Output: "%1"}
	}
	m, lanes, clk, _ := newManager(t, Config{Tmux: "work:1.0", Prompt: "go {lane} {wake} {head}"}, ex)
	w := lanes.post(t, "a", "1")
	m.Wake(w)
	waitFor(t, "the prompt", func() bool { return m.Status()[0].Pane.Prompts == 1 })
	m.Wake(w)        // the same wake again: nothing typed
	m.kick("a", nil) // a kick for a wake already prompted: nothing
	time.Sleep(20 * time.Millisecond)
	clk.Advance(5 * time.Minute)
	m.Wake(ob.Wake{Lane: "a", WakeID: w.WakeID, Reason: ob.WakeRedeliver, Class: ob.ClassHuman, Head: 1, At: clk.Now()})
	waitFor(t, "the re-delivered prompt", func() bool { return m.Status()[0].Pane.Prompts == 2 })
	if len(typed) != 2 || typed[0] != "go a a@1 1" {
		t.Fatalf("typed %q", typed)
	}
}

type errString string

func (e errString) Error() string { return string(e) }

func stdinOf(t *testing.T, c supervise.Command) string {
	t.Helper()
	var b strings.Builder
	buf := make([]byte, 4096)
	for {
		n, err := c.Stdin.Read(buf)
		b.Write(buf[:n])
		if err != nil {
			return b.String()
		}
	}
}
