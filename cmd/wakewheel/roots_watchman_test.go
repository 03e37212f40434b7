package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/wakewheel/wakewheel/roots"
)

// TestCheckoutBesideWatchman is the checkout benchmark of `make bench`
// (WAKEWHEEL_BENCH_CHECKOUT=1): the same checkout of a 10,000-file (and,
// with WAKEWHEEL_BENCH_BIG=1, a 100,000-file) repository, delivered
// through the daemon with a no-op ingest and through a Watchman trigger
// (when watchman is installed; skipped with a message otherwise), in one
// run: checkout end → the full changed set delivered, ingest runs, CPU of
// each side (the service and its children). Paths missing or extra
// against `git diff --name-only --no-renames A B` fail the test.
func TestCheckoutBesideWatchman(t *testing.T) {
	if os.Getenv("WAKEWHEEL_BENCH_CHECKOUT") != "1" {
		t.Skip("a benchmark: make bench runs it (WAKEWHEEL_BENCH_CHECKOUT=1)")
	}
	sizes := [][2]int{{10000, 500}}
	if os.Getenv("WAKEWHEEL_BENCH_BIG") == "1" {
		sizes = append(sizes, [2]int{100000, 500})
	}
	for _, sz := range sizes {
		t.Run(fmt.Sprintf("files=%d", sz[0]), func(t *testing.T) {
			ours := checkoutThroughDaemon(t, sz[0], sz[1])
			theirs, ok := checkoutThroughWatchman(t, sz[0], sz[1])
			if !ok {
				t.Logf("wakewheel: %s", ours)
				return
			}
			t.Logf("wakewheel: %s", ours)
			t.Logf("watchman:  %s", theirs)
			t.Logf("ratios wakewheel/watchman: delivery %.2f, CPU %.2f", ours.took.Seconds()/theirs.took.Seconds(), ours.cpu.Seconds()/theirs.cpu.Seconds())
		})
	}
}

type checkoutRun struct {
	paths, runs int
	took, cpu   time.Duration
}

func (r checkoutRun) String() string {
	runs := ""
	if r.runs >= 0 {
		runs = fmt.Sprintf(", %d ingest runs", r.runs)
	}
	return fmt.Sprintf("%d paths delivered %v after the checkout ended%s, CPU %v", r.paths, r.took.Round(time.Millisecond), runs, r.cpu.Round(time.Millisecond))
}

// cpuOf is the user+system time of pid and its waited-for children.
func cpuOf(t *testing.T, pid int) time.Duration {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		t.Fatal(err)
	}
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+2:]))
	var ticks int64
	for _, i := range []int{11, 12, 13, 14} { // utime stime cutime cstime
		n, _ := strconv.ParseInt(f[i], 10, 64)
		ticks += n
	}
	return time.Duration(ticks) * 10 * time.Millisecond // USER_HZ 100
}

// waitDelivered polls out until every wanted path is in it.
func waitDelivered(t *testing.T, out string, want []string, sep byte) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Minute)
	for {
		b, _ := os.ReadFile(out)
		got := map[string]bool{}
		for _, p := range bytes.Split(b, []byte{sep}) {
			got[string(p)] = true
		}
		missing := 0
		for _, p := range want {
			if !got[p] {
				missing++
			}
		}
		if missing == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d paths not delivered after 5 minutes", missing, len(want))
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func checkoutThroughDaemon(t *testing.T, n, added int) checkoutRun {
	repo, a, b := checkoutRepo(t, n, added)
	want := splitZ(gitT(t, repo, "diff", "--name-only", "--no-renames", "-z", a, b))
	h := newHome(t)
	d := h.start()
	defer d.stop(t)
	c := h.client()
	out := filepath.Join(t.TempDir(), "ingested")
	ingest := ingestScript(t, out)
	if text, err := h.run("watch", repo, "--arm", "--ingest", ingest); err != nil {
		t.Fatalf("watch: %v\n%s", err, text)
	}
	root, _ := roots.CleanPath(repo)
	st := waitRoot(t, c, root, 60*time.Second, "the first detection", func(s roots.Status) bool {
		return s.Mode == roots.ModeNotify && s.Detections >= 1 && drained(s)
	})
	before, cpu0 := st.Batches, cpuOf(t, d.cmd.Process.Pid)
	gitT(t, repo, "checkout", "-q", "B")
	end := time.Now()
	waitDelivered(t, out, want, 0)
	took := time.Since(end)
	st = rootStatus(t, c, root)
	got := readIngested(t, out)
	if missing, extra := compare(want, got); len(missing)+len(extra) > 0 {
		t.Fatalf("missing %d, extra %d", len(missing), len(extra))
	}
	return checkoutRun{paths: len(want), runs: int(st.Batches - before), took: took, cpu: cpuOf(t, d.cmd.Process.Pid) - cpu0}
}

func checkoutThroughWatchman(t *testing.T, n, added int) (checkoutRun, bool) {
	if _, err := exec.LookPath("watchman"); err != nil {
		t.Logf("watchman is not installed (apt-get install watchman): its side is skipped")
		return checkoutRun{}, false
	}
	repo, a, b := checkoutRepo(t, n, added)
	want := splitZ(gitT(t, repo, "diff", "--name-only", "--no-renames", "-z", a, b))
	state := t.TempDir()
	args := []string{"--sockname=" + filepath.Join(state, "sock"), "--logfile=" + filepath.Join(state, "log"),
		"--statefile=" + filepath.Join(state, "state"), "--pidfile=" + filepath.Join(state, "pid")}
	wm := func(extra ...string) []byte {
		t.Helper()
		out, err := exec.Command("watchman", append(args, extra...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("watchman %q: %v\n%s", extra, err, out)
		}
		return out
	}
	wm("watch", repo)
	t.Cleanup(func() { exec.Command("watchman", append(args, "shutdown-server")...).Run() })
	out := filepath.Join(t.TempDir(), "triggered")
	trig := fmt.Sprintf(`["trigger", %q, {"name": "bench", "expression": ["type", "f"], "stdin": "NAME_PER_LINE", "command": ["sh", "-c", "cat >> '%s'"]}]`, repo, out)
	cmd := exec.Command("watchman", append(args, "-j")...)
	cmd.Stdin = strings.NewReader(trig)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("watchman trigger: %v\n%s", err, b)
	}
	time.Sleep(time.Second) // the trigger's first run (every file) ends
	pidText, _ := os.ReadFile(filepath.Join(state, "pid"))
	pid, err := strconv.Atoi(strings.TrimSpace(string(pidText)))
	if err != nil {
		t.Fatalf("watchman's pid: %q", pidText)
	}
	if err := os.Remove(out); err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	cpu0 := cpuOf(t, pid)
	gitT(t, repo, "checkout", "-q", "B")
	end := time.Now()
	waitDelivered(t, out, want, '\n')
	return checkoutRun{paths: len(want), runs: -1, took: time.Since(end), cpu: cpuOf(t, pid) - cpu0}, true
}
