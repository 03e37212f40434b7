package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/pprof"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/wakewheel/wakewheel/api"
)

// TestMain lets the test binary act as the wakewheel binary: a child started
// with WAKEWHEEL_TEST_MAIN=1 runs main() with its arguments. Tests get real
// daemon processes to kill without a separate build.
func TestMain(m *testing.M) {
	if spec := os.Getenv(hostileEnv); spec != "" {
		runHostileServer(spec)
	}
	if os.Getenv("WAKEWHEEL_TEST_MAIN") == "1" {
		os.Args = append([]string{"wakewheel"}, os.Args[1:]...)
		if prof := os.Getenv("WAKEWHEEL_TEST_CPUPROFILE"); prof != "" {
			// A daemon child profiled for a benchmark (its verb's exit writes it).
			if f, err := os.Create(prof + "." + strconv.Itoa(os.Getpid())); err == nil && pprof.StartCPUProfile(f) == nil {
				main()
				pprof.StopCPUProfile()
				f.Close()
				os.Exit(0)
			}
		}
		main()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// home is one isolated installation: its own state, config and socket.
type home struct {
	t      *testing.T
	dir    string
	socket string
	env    []string
}

func newHome(t *testing.T) *home {
	dir := t.TempDir()
	// unix socket paths are limited to 107 bytes: keep it short
	sockDir, err := os.MkdirTemp("", "ww")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(sockDir) })
	h := &home{t: t, dir: dir, socket: filepath.Join(sockDir, "s.sock")}
	h.env = append(os.Environ(),
		"WAKEWHEEL_TEST_MAIN=1",
		"XDG_CONFIG_HOME="+filepath.Join(dir, "config"),
		"XDG_STATE_HOME="+filepath.Join(dir, "state"),
		"WAKEWHEEL_ENGINE_STORE_DIR="+filepath.Join(dir, "store"),
		"WAKEWHEEL_ENGINE_SOCKET_PATH="+h.socket,
		"WAKEWHEEL_LOG_FORMAT=json",
	)
	return h
}

// command returns the wakewheel binary (this test binary) with args.
func (h *home) command(args ...string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = h.env
	return cmd
}

// run runs a CLI verb and returns its output and error.
func (h *home) run(args ...string) (string, error) {
	out, err := h.command(args...).CombinedOutput()
	return string(out), err
}

// child is a running daemon child process.
type child struct {
	cmd *exec.Cmd
	log *os.File
}

// start starts a daemon and waits until it answers on its socket.
func (h *home) start() *child {
	h.t.Helper()
	return h.startWith("daemon")
}

// startWith starts the daemon verb given by args and waits until it
// answers on its socket, ready (its deadlines loaded).
func (h *home) startWith(args ...string) *child {
	h.t.Helper()
	return h.startUntil(func(st api.Status) bool { return st.State != api.StateLoading }, args...)
}

// startUntil starts the daemon verb given by args (the daemon with none)
// and waits until a status it answers satisfies ok.
func (h *home) startUntil(ok func(api.Status) bool, args ...string) *child {
	h.t.Helper()
	if len(args) == 0 {
		args = []string{"daemon"}
	}
	logf, err := os.CreateTemp(h.dir, "daemon-*.log")
	if err != nil {
		h.t.Fatal(err)
	}
	cmd := h.command(args...)
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		h.t.Fatal(err)
	}
	d := &child{cmd: cmd, log: logf}
	c := h.client()
	deadline := time.Now().Add(10 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		st, err := c.Status(ctx)
		cancel()
		if err == nil && ok(st) {
			return d
		}
		if time.Now().After(deadline) {
			d.kill()
			log, _ := os.ReadFile(logf.Name())
			h.t.Fatalf("daemon did not answer: %v\n%s", err, log)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func (h *home) client() *api.Client { return api.NewClient(h.socket) }

// kill SIGKILLs the daemon and reaps it.
func (d *child) kill() {
	d.cmd.Process.Signal(syscall.SIGKILL)
	d.cmd.Wait()
	d.log.Close()
}

// stop SIGTERMs the daemon and waits for a clean exit.
func (d *child) stop(t *testing.T) {
	t.Helper()
	d.cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan error, 1)
	go func() { done <- d.cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			log, _ := os.ReadFile(d.log.Name())
			t.Fatalf("daemon exited with %v after SIGTERM\n%s", err, log)
		}
	case <-time.After(15 * time.Second):
		d.kill()
		t.Fatal("daemon did not exit within 15s of SIGTERM")
	}
	d.log.Close()
}
