package main

import (
	"bufio"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wakewheel/wakewheel/api"
	ob "github.com/wakewheel/wakewheel/obligations"
)

// fakeAgent is a headless agent for the runner tests: it reads the digest
// on stdin, takes its lane's lock (a second run at once is a violation),
// records every message it acts on, and acks up to the head through the
// CLI (unless told to skip one ack with a <lane>.noack-once file).
const fakeAgent = `#!/bin/sh
dir="$AGENT_TEST_DIR"
lane="$WAKEWHEEL_LANE"
exec 9>>"$dir/$lane.lock"
if ! flock -n 9; then echo "overlap $lane $WAKEWHEEL_WAKE_ID" >> "$dir/violations"; fi
in=$(cat)
case "$in" in *"verdict: noop"*) echo "noop-run $lane $WAKEWHEEL_WAKE_ID" >> "$dir/violations";; esac
echo "run $lane $WAKEWHEEL_WAKE_ID $(date +%s.%N) session=$WAKEWHEEL_SESSION_ID" >> "$dir/runs"
ids=$(printf '%s\n' "$in" | sed -n "s/^human #\([0-9]*\) id=\([^ ]*\).*/$lane \1 \2/p")
printf '%s\n' "$ids" >> "$dir/acted"
sleep 0.1
if [ -f "$dir/$lane.noack-once" ]; then rm -f "$dir/$lane.noack-once"; exit 0; fi
"$AGENT_TEST_BIN" ack --lane "$lane" --upto "$WAKEWHEEL_HEAD" >/dev/null || printf '%s\n' "$ids" >> "$dir/ackfailed"
`

// agentHome is a home whose lanes run fakeAgent.
func agentHome(t *testing.T, lanes []string, extra string) (*home, string) {
	t.Helper()
	h := newHome(t)
	dir := filepath.Join(h.dir, "agent")
	os.MkdirAll(dir, 0o700)
	script := filepath.Join(dir, "agent.sh")
	if err := os.WriteFile(script, []byte(fakeAgent), 0o700); err != nil {
		t.Fatal(err)
	}
	h.env = append(h.env, "AGENT_TEST_DIR="+dir, "AGENT_TEST_BIN="+os.Args[0])
	var cfg strings.Builder
	cfg.WriteString("obligations:\n  human:\n    cadence: 10s\nlanes:\n")
	for _, l := range lanes {
		fmt.Fprintf(&cfg, "  %s:\n    agent: sh %s\n    agent_timeout: 30s\n", l, script)
	}
	cfg.WriteString(extra)
	h.writeConfig(t, cfg.String())
	return h, dir
}

func readLines(path string) []string {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		out = append(out, sc.Text())
	}
	return out
}

// runnerLedger counts, from the daemon's ledger, consumptions per
// obligation and runner turns (and runner turns that found nothing).
func runnerLedger(t *testing.T, c *api.Client) (consumed map[string]int, runs, noopRuns int) {
	t.Helper()
	entries, err := c.LedgerAll(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	consumed = map[string]int{}
	for _, e := range entries {
		switch {
		case e.Kind == ob.EntryConsumption:
			consumed[e.Lane+"/"+e.ID]++
		case e.Kind == ob.EntryTurn && e.Mode == ob.TurnRunner:
			runs++
			if !e.Work {
				noopRuns++
			}
		}
	}
	return consumed, runs, noopRuns
}

// TestRunnerConsumesEveryPostOnce posts 200 obligations at random times
// to 3 lanes whose runner is a fake agent: each is consumed exactly once,
// acted on exactly once, there are no more runs than posts, no run finds
// nothing to do, and no lane ever has two runs at once.
func TestRunnerConsumesEveryPostOnce(t *testing.T) {
	lanes := []string{"ra", "rb", "rc"}
	h, dir := agentHome(t, lanes, "")
	d := h.start()
	defer d.stop(t)
	c := h.client()
	ctx := context.Background()
	for _, l := range lanes {
		if _, err := c.OpenLane(ctx, l); err != nil {
			t.Fatal(err)
		}
	}
	n := 200
	if testing.Short() {
		n = 40
	}
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 7))
	posted := map[string]bool{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for i := range n {
		lane := lanes[rng.IntN(len(lanes))]
		id := fmt.Sprintf("p%d", i)
		time.Sleep(time.Duration(rng.IntN(60)) * time.Millisecond)
		wg.Add(1)
		go func() { // producers post concurrently, as separate clients would
			defer wg.Done()
			if _, err := c.Post(ctx, api.PostRequest{Lane: lane, Class: "human", ID: id, Body: "task " + id}); err != nil {
				t.Errorf("post %s: %v", id, err)
			}
			mu.Lock()
			posted[lane+"/"+id] = true
			mu.Unlock()
		}()
	}
	wg.Wait()
	eventually(t, "every post consumed", func() bool {
		consumed, _, _ := runnerLedger(t, c)
		return len(consumed) == n
	})
	time.Sleep(300 * time.Millisecond) // a last run would show as a violation or an extra run
	consumed, runs, noopRuns := runnerLedger(t, c)
	for k, times := range consumed {
		if times != 1 || !posted[k] {
			t.Errorf("%s consumed %d times (posted %v)", k, times, posted[k])
		}
	}
	acted := map[string]int{}
	for _, line := range readLines(filepath.Join(dir, "acted")) {
		f := strings.Fields(line)
		acted[f[0]+"/"+f[2]]++
	}
	for k := range posted {
		if acted[k] != 1 {
			t.Errorf("%s acted on %d times, want exactly once", k, acted[k])
		}
	}
	if v := readLines(filepath.Join(dir, "violations")); len(v) > 0 {
		t.Errorf("violations: %q", v)
	}
	if runs > n || noopRuns > 0 || runs != len(readLines(filepath.Join(dir, "runs"))) {
		t.Errorf("%d runner turns (%d without work) for %d posts; the agent saw %d runs", runs, noopRuns, n, len(readLines(filepath.Join(dir, "runs"))))
	}
	t.Logf("%d posts on %d lanes: %d runs (%.2f posts a run)", n, len(lanes), runs, float64(n)/float64(runs))
}

// TestRunnerRetriesAtTheCadenceAndSurvivesKills: a run that exits without
// acking is run again at the class cadence (10 s here), not before; and 20
// SIGKILLs of the daemon while runs are under way lose nothing and never
// let a lane run twice at once.
func TestRunnerRetriesAtTheCadenceAndSurvivesKills(t *testing.T) {
	t.Parallel() // mostly waits on cadences and idle windows: it may overlap the others
	if testing.Short() {
		t.Skip("kills a daemon 20 times")
	}
	lanes := []string{"ka", "kb", "kc"}
	h, dir := agentHome(t, lanes, "")
	d := h.start()
	c := h.client()
	ctx := context.Background()
	for _, l := range lanes {
		if _, err := c.OpenLane(ctx, l); err != nil {
			t.Fatal(err)
		}
	}

	// A run that does not ack: the next run comes at the cadence.
	os.WriteFile(filepath.Join(dir, "ka.noack-once"), nil, 0o600)
	posted := time.Now()
	if _, err := c.Post(ctx, api.PostRequest{Lane: "ka", Class: "human", ID: "noack", Body: "task noack"}); err != nil {
		t.Fatal(err)
	}
	var runTimes []float64
	deadline := time.Now().Add(30 * time.Second)
	for len(runTimes) < 2 && time.Now().Before(deadline) {
		runTimes = runTimes[:0]
		for _, line := range readLines(filepath.Join(dir, "runs")) {
			f := strings.Fields(line)
			if f[1] == "ka" {
				at, _ := strconv.ParseFloat(f[3], 64)
				runTimes = append(runTimes, at)
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	if len(runTimes) < 2 {
		t.Fatalf("the unacked work was not run again within 30s (runs %v)", runTimes)
	}
	gap := time.Duration((runTimes[1] - runTimes[0]) * float64(time.Second))
	first := time.Duration(runTimes[0]*float64(time.Second)) - time.Duration(posted.UnixNano())
	if gap < 9*time.Second || gap > 16*time.Second {
		t.Fatalf("second run %s after the first (first %s after the post); want the 10s cadence", gap, first)
	}
	t.Logf("unacked run retried after %s (cadence 10s); first run %s after the post", gap.Round(time.Millisecond), first.Round(time.Millisecond))
	eventually(t, "the retried work consumed", func() bool {
		consumed, _, _ := runnerLedger(t, c)
		return consumed["ka/noack"] == 1
	})

	// 20 kills while runs are under way.
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 9))
	want := map[string]bool{"ka/noack": true}
	seq := 0
	killedMidRun := 0
	for kill := range 20 {
		for range 1 + rng.IntN(4) {
			lane := lanes[rng.IntN(len(lanes))]
			id := fmt.Sprintf("k%d", seq)
			seq++
			if _, err := c.Post(ctx, api.PostRequest{Lane: lane, Class: "human", ID: id, Body: "task " + id}); err != nil {
				t.Fatalf("kill %d: post %s: %v", kill, id, err)
			}
			want[lane+"/"+id] = true
		}
		// Wait (bounded) for a run to be under way, then kill mid-run.
		for end := time.Now().Add(2 * time.Second); time.Now().Before(end); time.Sleep(5 * time.Millisecond) {
			if runs, _ := filepath.Glob(filepath.Join(h.dir, "store", "agents", "*.run")); len(runs) > 0 {
				killedMidRun++
				break
			}
		}
		time.Sleep(time.Duration(rng.IntN(80)) * time.Millisecond)
		d.kill()
		d = h.start()
	}
	eventually(t, "everything posted before the kills consumed", func() bool {
		consumed, _, _ := runnerLedger(t, c)
		n := 0
		for k := range want {
			if consumed[k] > 0 {
				n++
			}
		}
		return n == len(want)
	})
	d.stop(t)
	d = h.start()
	defer d.stop(t)
	consumed, runs, noopRuns := runnerLedger(t, c)
	for k := range want {
		if consumed[k] != 1 {
			t.Errorf("%s consumed %d times", k, consumed[k])
		}
	}
	acted := map[string]bool{}
	for _, line := range readLines(filepath.Join(dir, "acted")) {
		f := strings.Fields(line)
		acted[f[0]+"/"+f[2]] = true
	}
	for k := range want {
		if !acted[k] {
			t.Errorf("%s was consumed but never acted on", k)
		}
	}
	if v := readLines(filepath.Join(dir, "violations")); len(v) > 0 {
		t.Errorf("violations (two runs of a lane at once, or a run with nothing to do): %q", v)
	}
	if noopRuns > 0 {
		t.Errorf("%d runs found nothing to do", noopRuns)
	}
	t.Logf("20 kills (%d caught a run under way): %d obligations, %d runs, nothing lost", killedMidRun, len(want), runs)
}
