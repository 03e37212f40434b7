package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wakewheel/wakewheel/api"
	ob "github.com/wakewheel/wakewheel/obligations"
)

// simHost behaves like a coding-agent host as its documentation describes
// it (docs/AGENT-HOSTS.md): it reads the hook commands from the project's
// .claude/settings.json (written by `wakewheel hook install`), runs the
// command of each lifecycle event with the event's JSON on stdin and the
// configured timeout, applies decision "block" (the reason becomes the
// agent's next instruction) and additionalContext, and sets
// stop_hook_active on the stops of a chain it continued. Its agent
// "thinks" by reading the instruction, recording every message it acts on
// and acking up to the head through the CLI.
type simHost struct {
	t       *testing.T
	h       *home
	lane    string
	dir     string // shared records of acted and unacked work
	hooks   map[string]hookSpec
	session string
	cwd     string
	user    chan string // "prompt", "clear", "quit"

	mu      sync.Mutex
	blocks  []hostBlock
	parks   []time.Time // when a clear's SessionEnd returned with the lane parked
	clears  int
	downRun []time.Duration // Stop hooks run while the daemon was down: how long each took
	down    func() bool
	resting bool // its Stop hook let the agent rest; it waits for its user
}

func (s *simHost) atRest() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.resting
}

type hookSpec struct {
	command string
	timeout time.Duration
}

type hostBlock struct {
	wake   string
	active bool // stop_hook_active of the stop that was blocked
}

func loadHooks(t *testing.T, settings string) map[string]hookSpec {
	t.Helper()
	b, err := os.ReadFile(settings)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Hooks map[string][]struct {
			Hooks []struct {
				Type, Command string
				Timeout       int
			}
		}
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	out := map[string]hookSpec{}
	for ev, groups := range doc.Hooks {
		for _, g := range groups {
			for _, hk := range g.Hooks {
				if hk.Type == "command" {
					out[ev] = hookSpec{command: hk.Command, timeout: time.Duration(hk.Timeout) * time.Second}
				}
			}
		}
	}
	return out
}

// run runs the event's hook as the host does: sh -c COMMAND, JSON on
// stdin, killed at its timeout; the answer is stdout's JSON.
func (s *simHost) run(event string, fields map[string]any) (hookAnswer, time.Duration) {
	spec, ok := s.hooks[event]
	if !ok {
		return hookAnswer{}, 0
	}
	ev := map[string]any{"session_id": s.session, "transcript_path": filepath.Join(s.cwd, s.session+".jsonl"),
		"cwd": s.cwd, "permission_mode": "default", "hook_event_name": event}
	for k, v := range fields {
		ev[k] = v
	}
	in, _ := json.Marshal(ev)
	ctx, cancel := context.WithTimeout(context.Background(), spec.timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "/bin/sh", "-c", spec.command)
	cmd.Env, cmd.Dir = s.h.env, s.cwd
	cmd.Stdin = bytes.NewReader(in)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	start := time.Now()
	err := cmd.Run()
	took := time.Since(start)
	if err != nil {
		s.t.Errorf("%s hook of lane %s exited with %v (a hook must exit 0): %s", event, s.lane, err, errb.String())
	}
	var a hookAnswer
	if bytes.TrimSpace(out.Bytes()) != nil && len(bytes.TrimSpace(out.Bytes())) > 0 {
		if err := json.Unmarshal(out.Bytes(), &a); err != nil {
			s.t.Errorf("%s hook answered %q: %v", event, out.String(), err)
		}
	}
	return a, took
}

var (
	humanLine = regexp.MustCompile(`(?m)^human #(\d+) id=(\S+)`)
	uptoRe    = regexp.MustCompile(`--upto (\d+)`)
	wakeRe    = regexp.MustCompile(`, wake (\S+?)[, ]`)
)

// think is the agent's turn on an instruction: act on each message (up to
// the head it is told to ack), then ack through the CLI.
func (s *simHost) think(text string) {
	m := uptoRe.FindStringSubmatch(text)
	if m == nil {
		return
	}
	upto, _ := strconv.Atoi(m[1])
	var acted []string
	for _, hm := range humanLine.FindAllStringSubmatch(text, -1) {
		if seq, _ := strconv.Atoi(hm[1]); seq <= upto {
			acted = append(acted, fmt.Sprintf("%s %s %s host", s.lane, hm[1], hm[2]))
		}
	}
	appendLines(s.t, filepath.Join(s.dir, "acted"), acted)
	if _, err := s.h.run("ack", "--lane", s.lane, "--upto", m[1]); err != nil {
		appendLines(s.t, filepath.Join(s.dir, "ackfailed"), acted)
	}
}

func appendLines(t *testing.T, path string, lines []string) {
	if len(lines) == 0 {
		return
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		t.Error(err)
		return
	}
	defer f.Close()
	f.WriteString(strings.Join(lines, "\n") + "\n")
}

func (s *simHost) startSession(source string) {
	a, _ := s.run("SessionStart", map[string]any{"source": source, "model": "sim"})
	if a.HookSpecificOutput != nil {
		s.think(a.HookSpecificOutput.AdditionalContext)
	}
}

// stopChain is the end of a turn: Stop, and while it blocks, think and
// stop again with stop_hook_active.
func (s *simHost) stopChain() {
	active := false
	for {
		down := s.down()
		a, took := s.run("Stop", map[string]any{"stop_hook_active": active, "last_assistant_message": "done"})
		if down {
			s.mu.Lock()
			s.downRun = append(s.downRun, took)
			s.mu.Unlock()
		}
		if a.Decision != "block" {
			return // the agent rests until its user (or a runner, or its pane) comes
		}
		w := wakeRe.FindStringSubmatch(a.Reason)
		if w == nil {
			s.t.Errorf("a block without a wake id:\n%s", a.Reason)
			return
		}
		s.mu.Lock()
		s.blocks = append(s.blocks, hostBlock{wake: w[1], active: active})
		s.mu.Unlock()
		s.think(a.Reason)
		active = true
	}
}

func (s *simHost) loop(c *api.Client, wg *sync.WaitGroup) {
	defer wg.Done()
	s.startSession("startup")
	for {
		s.stopChain()
		s.mu.Lock()
		s.resting = true
		s.mu.Unlock()
		u := <-s.user
		s.mu.Lock()
		s.resting = false
		s.mu.Unlock()
		switch u {
		case "quit":
			return
		case "prompt":
			a, _ := s.run("UserPromptSubmit", map[string]any{"prompt": "carry on"})
			if a.HookSpecificOutput != nil {
				s.think(a.HookSpecificOutput.AdditionalContext)
			}
		case "clear":
			asked := time.Now()
			if s.down() {
				s.t.Errorf("lane %s: a clear while the daemon is down: the day's schedule must keep them apart", s.lane)
			}
			s.run("SessionEnd", map[string]any{"reason": "clear"})
			ls, err := c.Lanes(context.Background())
			s.mu.Lock()
			s.clears++
			for _, l := range ls {
				if err == nil && l.Lane == s.lane && l.Parked != nil && !l.Parked.At.Before(asked.Add(-time.Second)) {
					s.parks = append(s.parks, l.Parked.At)
				}
			}
			s.mu.Unlock()
			s.session = fmt.Sprintf("%s-after-clear-%d", s.lane, s.clears)
			s.startSession("clear")
		}
	}
}

// TestSimulatedHostWorkingDay: a working day (compressed to ~25 s) of 20
// obligations posted at random times to 2 lanes, each served by a
// simulated host whose hooks were installed by `wakewheel hook install`.
// Lane sa's resting session is resumed by its runner; lane sb's is reached
// in its tmux pane (the runner when tmux cannot run). The daemon is killed
// mid-day and restarted. Checked: every obligation consumed exactly once
// and acted on once (plus once per ack the dead daemon refused), no agent
// turn without work, every turn within the class SLO of its post, no wake
// blocked twice in one stop chain, a park before every clear, posts after
// the agent came to rest reached through the runner or the pane, and no
// hook held its agent while the daemon was down.
func TestSimulatedHostWorkingDay(t *testing.T) {
	t.Parallel() // mostly waits on cadences and idle windows: it may overlap the others
	if testing.Short() {
		t.Skip("a compressed working day")
	}
	h := newHome(t)
	dir := filepath.Join(h.dir, "agent")
	os.MkdirAll(dir, 0o700)
	script := filepath.Join(dir, "agent.sh")
	os.WriteFile(script, []byte(fakeAgent), 0o700)
	repl := filepath.Join(dir, "repl.sh")
	os.WriteFile(repl, []byte(fakeREPL), 0o700)
	tmuxDir, _ := os.MkdirTemp("", "wwtmux")
	t.Cleanup(func() { os.RemoveAll(tmuxDir) })
	h.env = append(withoutTMUX(h.env), "AGENT_TEST_DIR="+dir, "AGENT_TEST_BIN="+os.Args[0], "TMUX_TMPDIR="+tmuxDir)

	sbDelivery := fmt.Sprintf("    agent: sh %s\n", script)
	if tmux, err := exec.LookPath("tmux"); err == nil {
		start := exec.Command(tmux, "new-session", "-d", "-s", "ww", "-x", "400", "-y", "40", "sh "+repl)
		start.Env = h.env
		if out, err := start.CombinedOutput(); err == nil {
			sbDelivery = "    tmux: ww:0.0\n"
			t.Cleanup(func() { k := exec.Command(tmux, "kill-server"); k.Env = h.env; k.Run() })
		} else {
			t.Logf("tmux cannot start here (%v: %s): lane sb uses the runner too", err, out)
		}
	} else {
		t.Log("no tmux: lane sb uses the runner too")
	}
	h.writeConfig(t, "obligations:\n  human:\n    cadence: 10s\nlanes:\n  sa:\n    agent: sh "+script+"\n  sb:\n"+sbDelivery)

	// Each lane's host: its project, its installed hooks.
	lanes := []string{"sa", "sb"}
	hosts := map[string]*simHost{}
	var downFlag sync.Mutex
	isDown := false
	down := func() bool { downFlag.Lock(); defer downFlag.Unlock(); return isDown }
	for _, l := range lanes {
		proj := filepath.Join(h.dir, "proj-"+l)
		os.MkdirAll(proj, 0o700)
		if out, err := h.run("hook", "install", "claude-code", "--lane", l, "--project", proj, "--idle", "3s"); err != nil {
			t.Fatalf("hook install: %v\n%s", err, out)
		}
		hosts[l] = &simHost{t: t, h: h, lane: l, dir: dir, hooks: loadHooks(t, filepath.Join(proj, ".claude", "settings.json")),
			session: l + "-session-1", cwd: proj, user: make(chan string), down: down}
	}
	d := h.start()
	c := h.client()
	ctx := context.Background()
	for _, l := range lanes {
		if _, err := c.OpenLane(ctx, l); err != nil {
			t.Fatal(err)
		}
	}
	var wg sync.WaitGroup
	for _, l := range lanes {
		wg.Add(1)
		go hosts[l].loop(c, &wg)
	}

	// The day: 20 posts at random times, user prompts, a clear, a daemon
	// that dies and comes back.
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 12))
	type event struct {
		at   time.Duration
		what string // "post LANE ID", "user LANE ACTION", "kill", "restart"
	}
	var day []event
	// Lane sa is quiet from 3.5s to 9s so that its user finds the agent at
	// rest for the clear at 7s.
	quiet := func(lane string, at time.Duration) bool {
		return lane == "sa" && at > 3500*time.Millisecond && at < 9*time.Second
	}
	at := func(lane string, from, span int) time.Duration {
		for {
			if d := time.Duration(from+rng.IntN(span)) * time.Millisecond; !quiet(lane, d) {
				return d
			}
		}
	}
	for i := range 18 {
		day = append(day, event{at(lanes[i%2], 500, 22000), fmt.Sprintf("post %s d%d", lanes[i%2], i)})
	}
	for _, l := range lanes {
		for range 3 {
			day = append(day, event{at(l, 1000, 20000), "user " + l + " prompt"})
		}
	}
	day = append(day, event{7 * time.Second, "user sa clear"}, event{14 * time.Second, "kill"}, event{16 * time.Second, "restart"})
	slices.SortStableFunc(day, func(a, b event) int { return int(a.at - b.at) })

	postedAt := map[string]time.Time{} // lane/id -> when the post was answered
	seqOf := map[string]uint64{}
	var postMu sync.Mutex
	var posters sync.WaitGroup
	start := time.Now()
	for _, ev := range day {
		time.Sleep(time.Until(start.Add(ev.at)))
		f := strings.Fields(ev.what)
		switch f[0] {
		case "post":
			lane, id := f[1], f[2]
			posters.Add(1)
			go func() { // a producer retries until the daemon takes it (same id)
				defer posters.Done()
				for {
					res, err := c.Post(ctx, api.PostRequest{Lane: lane, Class: "human", ID: id, Body: "task " + id})
					if err == nil {
						postMu.Lock()
						postedAt[lane+"/"+id], seqOf[lane+"/"+id] = res.Obligation.Posted, res.Obligation.Seq
						postMu.Unlock()
						return
					}
					time.Sleep(200 * time.Millisecond)
				}
			}()
		case "user":
			wait := 4 * time.Second
			if f[2] == "clear" {
				// The clear waits for the agent's rest however long a
				// loaded machine makes its turns: the kill below waits for
				// the clear, so the two never overlap.
				wait = time.Minute
			}
			go func() { // the user acts when the agent is at rest
				select {
				case hosts[f[1]].user <- f[2]:
				case <-time.After(wait): // busy all along: the user gives up
				}
			}()
		case "kill":
			for end := time.Now().Add(time.Minute); ; time.Sleep(20 * time.Millisecond) {
				hosts["sa"].mu.Lock()
				cleared := hosts["sa"].clears > 0
				hosts["sa"].mu.Unlock()
				if cleared || time.Now().After(end) {
					break
				}
			}
			downFlag.Lock()
			isDown = true
			downFlag.Unlock()
			d.kill()
			// A stop while the daemon is down, as any host may run one now.
			a, took := hosts["sa"].run("Stop", map[string]any{"stop_hook_active": false})
			if a.Decision != "" || took > 3*time.Second {
				t.Errorf("a Stop hook with the daemon down answered %+v after %s", a, took)
			}
			hosts["sa"].mu.Lock()
			hosts["sa"].downRun = append(hosts["sa"].downRun, took)
			hosts["sa"].mu.Unlock()
		case "restart":
			d = h.start()
			downFlag.Lock()
			isDown = false
			downFlag.Unlock()
		}
	}
	posters.Wait()
	// One post per lane once its agent came to rest: only the runner or
	// the pane can reach it now.
	for end := time.Now().Add(30 * time.Second); !(hosts["sa"].atRest() && hosts["sb"].atRest()); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatal("the agents did not come to rest within 30s of the day's end")
		}
	}
	for _, l := range lanes {
		id := "late-" + l
		res, err := c.Post(ctx, api.PostRequest{Lane: l, Class: "human", ID: id, Body: "task " + id})
		if err != nil {
			t.Fatal(err)
		}
		postedAt[l+"/"+id], seqOf[l+"/"+id] = res.Obligation.Posted, res.Obligation.Seq
	}
	deadline := time.Now().Add(60 * time.Second)
	var consumed map[string]int
	for time.Now().Before(deadline) {
		consumed, _, _ = runnerLedger(t, c)
		if len(consumed) >= 20 {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	for _, l := range lanes {
		hosts[l].user <- "quit"
	}
	wg.Wait()
	defer d.stop(t)

	// Every obligation consumed exactly once; acted on once, plus once per
	// ack the dead daemon refused.
	acted, failed := map[string]int{}, map[string]int{}
	for _, line := range readLines(filepath.Join(dir, "acted")) {
		if f := strings.Fields(line); len(f) >= 3 {
			acted[f[0]+"/"+f[2]]++
		}
	}
	for _, line := range readLines(filepath.Join(dir, "ackfailed")) {
		if f := strings.Fields(line); len(f) >= 3 {
			failed[f[0]+"/"+f[2]]++
		}
	}
	// The simulated pane REPL and runner agent are processes apart from the
	// simulated host, though in life each is the one agent of that session
	// (the pane's, or the session the runner resumes by id): when a user's
	// prompt re-presents work the pane or the runner was handed a moment
	// before (still unacked), two of them act on it. Such overlaps are
	// counted and reported; consumption stays exactly once.
	overlaps := 0
	for k := range postedAt {
		if consumed[k] != 1 {
			t.Errorf("%s consumed %d times", k, consumed[k])
		}
		switch extra := acted[k] - 1 - failed[k]; {
		case acted[k] == 0:
			t.Errorf("%s consumed but never acted on", k)
		case extra > 0:
			overlaps += extra
		}
		// extra < 0: an ack whose answer the kill cut off had landed.
	}
	if len(postedAt) != 20 {
		t.Fatalf("%d of 20 posts were taken", len(postedAt))
	}

	// The ledger's turns: none without work; each obligation's first turn
	// within its class SLO; posts after rest reached by the runner or pane.
	entries, err := c.LedgerAll(ctx)
	if err != nil {
		t.Fatal(err)
	}
	modes := map[ob.TurnMode]int{}
	var lat []time.Duration
	byMode := map[ob.TurnMode][]time.Duration{}
	for k, at := range postedAt {
		lane := strings.SplitN(k, "/", 2)[0]
		var first *ob.Entry
		for i := range entries {
			e := &entries[i]
			if e.Kind != ob.EntryTurn || e.Lane != lane || e.At.Before(at) {
				continue
			}
			head, _ := strconv.ParseUint(strings.TrimPrefix(e.WakeID, lane+"@"), 10, 64)
			if head >= seqOf[k] {
				first = e
				break
			}
		}
		if first == nil {
			// Delivered as context at a session start, or inside a turn of
			// the lane's session that was already under way.
			continue
		}
		l := first.At.Sub(at)
		if strings.Contains(k, "/late-") && first.Mode != ob.TurnRunner && first.Mode != ob.TurnPane {
			t.Errorf("%s, posted while its agent rested, reached it by %s, not its runner or pane", k, first.Mode)
		}
		lat = append(lat, l)
		byMode[first.Mode] = append(byMode[first.Mode], l)
		if l > 15*time.Minute {
			t.Errorf("%s: first turn %s after its post, past the human SLO", k, l)
		}
	}
	for _, e := range entries {
		if e.Kind == ob.EntryTurn {
			modes[e.Mode]++
			if !e.Work {
				t.Errorf("a no-op agent turn: %+v", e)
			}
		}
	}
	if modes[ob.TurnHook] == 0 || modes[ob.TurnRunner]+modes[ob.TurnPane] == 0 {
		t.Errorf("turns by mode %v: the day must use the Stop hook and the runner or pane", modes)
	}

	// No wake blocked twice in one stop chain; a park before every clear;
	// no hook held its agent while the daemon was down.
	for _, l := range lanes {
		hs := hosts[l]
		seen := map[string]int{}
		for _, b := range hs.blocks {
			if b.active && seen[b.wake] > 0 {
				t.Errorf("lane %s: wake %s blocked twice in one stop chain", l, b.wake)
			}
			seen[b.wake]++
		}
		if l == "sa" && hs.clears != 1 {
			t.Errorf("lane sa: %d clears; the day's clear never found its agent at rest", hs.clears)
		}
		if len(hs.parks) != hs.clears {
			t.Errorf("lane %s: %d clears, %d parks recorded before them", l, hs.clears, len(hs.parks))
		}
		for _, took := range hs.downRun {
			if took > 3*time.Second {
				t.Errorf("lane %s: a Stop hook took %s while the daemon was down", l, took)
			}
		}
	}
	sort := func(ds []time.Duration) []time.Duration { slices.Sort(ds); return ds }
	pct := func(ds []time.Duration, p float64) time.Duration {
		if len(ds) == 0 {
			return 0
		}
		return sort(ds)[int(p*float64(len(ds)-1)+0.5)]
	}
	t.Logf("turns by mode %v; clears %d; stop hooks run while the daemon was down: %d; pane/session overlaps acted twice: %d",
		modes, hosts["sa"].clears, len(hosts["sa"].downRun)+len(hosts["sb"].downRun), overlaps)
	t.Logf("post→first turn: n=%d p50 %s p95 %s max %s", len(lat), pct(lat, 0.5).Round(time.Millisecond), pct(lat, 0.95).Round(time.Millisecond), pct(lat, 1).Round(time.Millisecond))
	for m, ds := range byMode {
		t.Logf("  %s: n=%d p50 %s p95 %s", m, len(ds), pct(ds, 0.5).Round(time.Millisecond), pct(ds, 0.95).Round(time.Millisecond))
	}
}
