package supervise

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

func TestExitZero(t *testing.T) {
	res := Run(context.Background(), Command{Line: "echo hello; echo oops >&2"})
	if res.Err != nil || res.ExitCode != 0 {
		t.Fatalf("got %+v, want exit 0 and no error", res)
	}
	if res.Output != "hello\noops" {
		t.Fatalf("output %q, want both streams", res.Output)
	}
}

func TestExitCodeAndTailInError(t *testing.T) {
	res := Run(context.Background(), Command{Line: "echo 'index is locked' >&2; exit 3"})
	if res.ExitCode != 3 || res.TimedOut {
		t.Fatalf("got %+v, want exit 3", res)
	}
	if res.Err == nil || !strings.Contains(res.Err.Error(), "exit status 3: index is locked") {
		t.Fatalf("error %v, want the status then the output", res.Err)
	}
}

func TestOutputKeepsOnlyTheTail(t *testing.T) {
	res := Run(context.Background(), Command{Line: "seq 1 100000; echo last", OutputCap: 64})
	if len(res.Output) > 64 || !strings.HasSuffix(res.Output, "100000\nlast") {
		t.Fatalf("output %q (%d bytes), want the last 64 bytes", res.Output, len(res.Output))
	}
	if res.Dropped == 0 {
		t.Fatal("Dropped = 0, want the bytes not kept counted")
	}
}

func TestDirEnvStdin(t *testing.T) {
	dir := t.TempDir()
	res := Run(context.Background(), Command{
		Line:  `printf '%s|%s|' "$(pwd)" "$WHO"; cat`,
		Dir:   dir,
		Env:   []string{"WHO=ingest", "PATH=" + os.Getenv("PATH")},
		Stdin: strings.NewReader("a.go\x00b.go\x00"),
	})
	want := dir + "|ingest|a.go\x00b.go\x00"
	if res.Err != nil || res.Output != want {
		t.Fatalf("output %q err %v, want %q", res.Output, res.Err, want)
	}
}

func TestArgvRunsWithoutAShell(t *testing.T) {
	res := Run(context.Background(), Command{Argv: []string{"echo", "$HOME", "a;b"}})
	if res.Err != nil || res.Output != "$HOME a;b" {
		t.Fatalf("got %+v, want the arguments untouched", res)
	}
}

func TestStdoutAlsoGoesToTheGivenWriter(t *testing.T) {
	var full bytes.Buffer
	res := Run(context.Background(), Command{Line: "echo out; echo err >&2", Stdout: &full})
	if res.Err != nil || full.String() != "out\n" || !strings.Contains(res.Output, "err") {
		t.Fatalf("stdout %q, result %+v", full.String(), res)
	}
}

func TestEmptyCommandIsAnError(t *testing.T) {
	res := Run(context.Background(), Command{})
	if res.Err == nil || res.ExitCode != -1 {
		t.Fatalf("got %+v, want a refusal", res)
	}
}

func TestMissingDirSaysSo(t *testing.T) {
	gone := filepath.Join(t.TempDir(), "renamed")
	res := Run(context.Background(), Command{Line: "true", Dir: gone})
	if !errors.Is(res.Err, ErrNoDir) || !strings.Contains(res.Err.Error(), gone) || res.ExitCode != -1 {
		t.Fatalf("got %+v, want ErrNoDir naming %s", res, gone)
	}
}

// A command that starts a grandchild sleeping forever and waits for it:
// at the timeout the whole group dies, the grandchild with it.
func TestTimeoutKillsTheGrandchild(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "pid")
	res := Run(context.Background(), Command{
		Line:    "sleep 1000 & echo $! > " + pidFile + "; echo started; wait",
		Timeout: 300 * time.Millisecond,
	})
	if !res.TimedOut || !errors.Is(res.Err, ErrTimeout) || res.ExitCode != -1 {
		t.Fatalf("got %+v, want a timeout", res)
	}
	if !strings.Contains(res.Err.Error(), "killed after its timeout 300ms: started") {
		t.Fatalf("error %q, want the timeout then the output", res.Err)
	}
	requireGone(t, readPid(t, pidFile))
}

// A command that exits at once leaving a grandchild that holds its
// stdout: the run returns without waiting for the grandchild, and kills it.
func TestExitKillsWhatTheCommandLeft(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "pid")
	res := Run(context.Background(), Command{
		Line:      "sleep 1000 & echo $! > " + pidFile,
		WaitDelay: time.Minute,
	})
	if res.Err != nil {
		t.Fatalf("got %+v, want success", res)
	}
	if res.Took > 20*time.Second {
		t.Fatalf("took %s: the run waited for the grandchild's pipe", res.Took)
	}
	requireGone(t, readPid(t, pidFile))
}

// A descendant that left the group (setsid) and holds the output pipe
// cannot wedge the run: it returns after WaitDelay.
func TestDescendantOutsideTheGroupCannotWedge(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "pid")
	res := Run(context.Background(), Command{
		Line:      "setsid sh -c 'echo $$ > " + pidFile + "; exec sleep 1000' & sleep 0.2; echo done",
		WaitDelay: 300 * time.Millisecond,
	})
	pid := readPid(t, pidFile)
	t.Cleanup(func() { syscall.Kill(pid, syscall.SIGKILL) })
	if res.Err != nil || res.Output != "done" {
		t.Fatalf("got %+v, want success", res)
	}
}

func TestCancelStopsTheRun(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(200*time.Millisecond, cancel)
	res := Run(ctx, Command{Line: "sleep 1000"})
	if !errors.Is(res.Err, context.Canceled) || res.TimedOut || res.ExitCode != -1 {
		t.Fatalf("got %+v, want stopped by the caller", res)
	}
}

func readPid(t *testing.T, file string) int {
	t.Helper()
	var b []byte
	for i := 0; i < 100; i++ {
		b, _ = os.ReadFile(file)
		if len(bytes.TrimSpace(b)) > 0 {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatalf("pid file: %q: %v", b, err)
	}
	return pid
}

// requireGone waits (generously: the box is loaded) for pid to be gone or
// a zombie waiting for its reaper.
func requireGone(t *testing.T, pid int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if !Alive(pid) {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("process %d still alive after its run ended", pid)
}

func TestChildRunsUntilStopAndTakesItsGroupAlong(t *testing.T) {
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "grandchild")
	var log bytes.Buffer
	var mu sync.Mutex
	ch, err := Start(Command{Line: "trap 'echo stopping; exit 0' TERM; sleep 600 & echo $! >" + pidFile + "; echo started >&2; wait",
		Stderr: lockedWriter{&mu, &log}})
	if err != nil {
		t.Fatal(err)
	}
	waitOutput(t, ch, "started")
	grandchild := readPid(t, pidFile)
	ch.Stop(10 * time.Second)
	requireGone(t, grandchild)
	if err := ch.Err(); err != nil {
		t.Errorf("a child that exits 0 on SIGTERM: %v", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if !strings.Contains(log.String(), "started") || !strings.Contains(ch.Output(), "started") {
		t.Errorf("stderr %q, tail %q: want both to have the child's line", log.String(), ch.Output())
	}
}

func TestChildThatEndsByItselfSaysHow(t *testing.T) {
	ch, err := Start(Command{Argv: []string{"/bin/sh", "-c", "echo cannot bind >&2; exit 3"}})
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-ch.Done():
	case <-time.After(30 * time.Second):
		t.Fatal("the child did not end")
	}
	if err := ch.Err(); err == nil || err.Error() != "exit status 3" || ch.Output() != "cannot bind" {
		t.Errorf("Err %v, Output %q: want exit status 3 and the last words", err, ch.Output())
	}
	ch.Stop(time.Second) // at once: nothing left to stop
}

func TestChildStopKillsOneThatIgnoresSIGTERM(t *testing.T) {
	ch, err := Start(Command{Line: "trap '' TERM; echo ready; while :; do sleep 1; done"})
	if err != nil {
		t.Fatal(err)
	}
	waitOutput(t, ch, "ready")
	start := time.Now()
	ch.Stop(200 * time.Millisecond)
	if took := time.Since(start); took > 20*time.Second {
		t.Errorf("Stop took %s", took)
	}
	requireGone(t, ch.Pid())
}

// waitOutput waits (generously) until the child has written want.
func waitOutput(t *testing.T, ch *Child, want string) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); !strings.Contains(ch.Output(), want); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the child never wrote %q: %q", want, ch.Output())
		}
	}
}

type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
