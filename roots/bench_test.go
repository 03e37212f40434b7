package roots

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/wakewheel/wakewheel/deadlines"
	"github.com/wakewheel/wakewheel/internal/gitenv"
	"github.com/wakewheel/wakewheel/scheduler"
)

// The burst bench (BENCHMARKS.md, "Detectors"), the seed's
// bench_daemon_tick_burst: bursts of 10, 100 and 1000 changed files in a
// 10k-file and a 100k-file repository. Run with
//
//	WAKEWHEEL_BENCH=1 go test ./roots -run TestBench -v -timeout 30m
//
// It prints, per case, the median of 5 runs of the detection handler
// against a bare `git status --porcelain=v2 -z -uall` on the same
// repository state, and the engine's cost per drained file.
func TestBenchBurst(t *testing.T) {
	if os.Getenv("WAKEWHEEL_BENCH") != "1" {
		t.Skip("set WAKEWHEEL_BENCH=1")
	}
	for _, n := range []int{10000, 100000} {
		root := importRepo(t, n)
		s := newSim(t, Options{})
		s.watchRoot(root, Handlers{Ingest: func(context.Context, Batch) error { return nil }}, Spec{})
		for _, burst := range []int{10, 100, 1000} {
			var det, bare []time.Duration
			for rep := range 5 {
				for i := range burst {
					p := filepath.Join(root, benchPath((i*97+rep*burst)%n))
					if err := os.WriteFile(p, []byte(fmt.Sprintf("rep %d %d\n", rep, i)), 0o644); err != nil {
						t.Fatal(err)
					}
				}
				bare = append(bare, timeGitStatus(t, root))
				start := time.Now()
				out := s.m.detectHandler(context.Background(), scheduler.Firing{
					Deadline: deadlineOf(Key(KindDetect, root), KindDetect), Now: s.clk.Now()})
				det = append(det, time.Since(start))
				if out.Result != scheduler.Done {
					t.Fatalf("detection: %v %v", out.Result, out.Err)
				}
				if st := s.status(root); st.LastChanged != burst {
					t.Fatalf("captured %d, want %d", st.LastChanged, burst)
				}
				s.advance(time.Minute) // drain it
			}
			md, mb := median(det), median(bare)
			t.Logf("BENCH repo=%d burst=%d detection=%v git-status=%v ratio=%.2f", n, burst,
				md.Round(10*time.Microsecond), mb.Round(10*time.Microsecond), float64(md)/float64(mb))
		}
		s.close()
	}
}

// Engine overhead per drained file: a backlog of 10,000 paths drained 32
// at a time through a real Runner with a no-op Go ingest (the engine's own
// cost: firings, the store, the supervised goroutine) and with the no-op
// command `true` (adds a fork and exec per batch).
func TestBenchDrainOverhead(t *testing.T) {
	if os.Getenv("WAKEWHEEL_BENCH") != "1" {
		t.Skip("set WAKEWHEEL_BENCH=1")
	}
	for _, viaCommand := range []bool{false, true} {
		root := newRepo(t, "README")
		const n = 10000
		for i := range n {
			writeFile(t, root, fmt.Sprintf("u/d%02d/f%05d", i/1000, i), "x")
		}
		l := startLive(t, Options{})
		spec := Spec{Path: root}
		if viaCommand {
			cmd := "true"
			spec.Ingest = &cmd
		} else {
			l.m.SetHandlers(root, Handlers{Ingest: func(context.Context, Batch) error { return nil }})
		}
		if _, err := l.m.Watch(context.Background(), spec); err != nil {
			t.Fatal(err)
		}
		if _, err := l.m.Arm(context.Background(), root); err != nil {
			t.Fatal(err)
		}
		deadline := time.Now().Add(time.Minute)
		var start time.Time
		for {
			st := l.status(t, root)
			if start.IsZero() && st.Detections >= 1 {
				start = time.Now()
			}
			if st.Ingested >= n {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("%+v", st)
			}
			time.Sleep(time.Millisecond)
		}
		took := time.Since(start)
		kind := "go-func"
		if viaCommand {
			kind = "command"
		}
		t.Logf("BENCH drain ingest=%s paths=%d took=%v per-file=%.4fms", kind, n, took.Round(time.Millisecond), float64(took)/float64(n)/1e6)
	}
}

func deadlineOf(key, kind string) deadlines.Deadline {
	return deadlines.Deadline{Key: key, Kind: kind}
}

func benchPath(i int) string {
	return fmt.Sprintf("d%03d/e%02d/f%06d.txt", i/1000, (i/100)%10, i)
}

// importRepo makes a git repository of n committed files (one fast-import).
func importRepo(tb testing.TB, n int) string {
	tb.Helper()
	dir := tb.TempDir()
	git(tb, dir, "init", "-q")
	var in bytes.Buffer
	fmt.Fprintf(&in, "commit refs/heads/main\ncommitter t <t@t> 1700000000 +0000\ndata 1\nA\n")
	for i := range n {
		data := "v1 " + benchPath(i) + "\n"
		fmt.Fprintf(&in, "M 100644 inline %s\ndata %d\n%s\n", benchPath(i), len(data), data)
	}
	cmd := exec.Command("git", "-C", dir, "fast-import", "--quiet")
	cmd.Stdin = &in
	if out, err := cmd.CombinedOutput(); err != nil {
		tb.Fatalf("fast-import: %v: %s", err, out)
	}
	git(tb, dir, "reset", "-q", "--hard", "main")
	real, err := CleanPath(dir)
	if err != nil {
		tb.Fatal(err)
	}
	return real
}

func timeGitStatus(tb testing.TB, dir string) time.Duration {
	tb.Helper()
	start := time.Now()
	cmd := exec.Command("git", "--no-optional-locks", "-C", dir, "status", "--porcelain=v2", "-z", "-uall")
	cmd.Env = gitenv.Env()
	if out, err := cmd.CombinedOutput(); err != nil {
		tb.Fatalf("git status: %v %s", err, out)
	}
	return time.Since(start)
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}
