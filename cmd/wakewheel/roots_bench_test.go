package main

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wakewheel/wakewheel/roots"
)

// Peak RSS of a daemon watching a 100,000-file repository (1,100
// directories) through a burst of 1,000 changed files drained by a real
// no-op ingest command: VmHWM of /proc/<pid>/status. Run with
//
//	WAKEWHEEL_BENCH=1 go test ./cmd/wakewheel -run TestBenchDaemonRSS -v -timeout 20m
func TestBenchDaemonRSS(t *testing.T) {
	if os.Getenv("WAKEWHEEL_BENCH") != "1" {
		t.Skip("set WAKEWHEEL_BENCH=1")
	}
	start := time.Now()
	repo, _, _ := checkoutRepo(t, 100000, 0)
	t.Logf("generated 100,000 files in %v", time.Since(start).Round(time.Second))
	h := newHome(t)
	d := h.start()
	defer d.stop(t)
	c := h.client()
	ingest := "cat > /dev/null"
	st := watchArmed(t, c, repo, ingest, 2*time.Minute)
	root := st.Path
	idle := vmHWM(t, d.cmd.Process.Pid)
	for i := 0; i < 1000; i++ {
		p := filepath.Join(repo, fmt.Sprintf("d%03d/e%02d/f%05d.txt", (i*97)/1000, ((i*97)/100)%10, i*97))
		if err := os.WriteFile(p, []byte("changed\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	before := st.Detections
	st = waitRoot(t, c, root, 2*time.Minute, "the drain", func(s roots.Status) bool { return s.Detections > before && drained(s) })
	peak := vmHWM(t, d.cmd.Process.Pid)
	t.Logf("BENCH rss repo=100000 dirs=%d watched: VmHWM after arming %d kB, after a 1000-file burst %d kB (%.1f MB); ingested %d",
		st.WatchedDirs, idle, peak, float64(peak)/1024, st.Ingested)
	if peak > 64*1024 {
		t.Errorf("peak RSS %d kB exceeds 64 MB", peak)
	}
}

func vmHWM(t *testing.T, pid int) int {
	t.Helper()
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			var kb int
			fmt.Sscan(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), &kb)
			return kb
		}
	}
	t.Fatal("no VmHWM")
	return 0
}
