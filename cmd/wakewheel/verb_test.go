package main

import (
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// inProcess runs one command line in this process against h's daemon, with
// its own output buffers, and returns the exit status main would exit with.
func (h *home) inProcess(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(h.dir, "config"))
	t.Setenv("XDG_STATE_HOME", filepath.Join(h.dir, "state"))
	t.Setenv("WAKEWHEEL_ENGINE_SOCKET_PATH", h.socket)
	t.Setenv("WAKEWHEEL_ENGINE_STORE_DIR", filepath.Join(h.dir, "store"))
	root := newRoot()
	var out, errOut bytes.Buffer
	root.SetOut(&out)
	root.SetErr(&errOut)
	root.SetIn(strings.NewReader(""))
	root.SetArgs(args)
	code = execute(root)
	return out.String(), errOut.String(), code
}

// Every verb writes to its command's own output, never to the process's
// stdout: run in process with the real stdout swapped for a pipe, each
// verb's answer is in the command's buffer and the pipe stays empty.
func TestVerbsWriteToTheCommandsOwnOutput(t *testing.T) {
	h := newHome(t)
	d := h.start()
	defer d.stop(t)

	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	realStdout := os.Stdout
	os.Stdout = w
	leaked := make(chan string)
	go func() { b, _ := io.ReadAll(r); leaked <- string(b) }()
	defer func() { os.Stdout = realStdout }()

	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"status"}, "pending"},
		{[]string{"status", "--json"}, `"pid"`},
		{[]string{"remind", "tea", "--in", "1h"}, "reminder/tea due"},
		{[]string{"deadlines"}, "reminder/tea"},
		{[]string{"alerts"}, "no alerts"},
		{[]string{"lanes", "--open", "l1"}, "l1"},
		{[]string{"post", "--lane", "l1", "--class", "human", "hello"}, "posted l1#1"},
		{[]string{"digest", "--lane", "l1"}, "hello"},
		{[]string{"wait", "--lane", "l1", "--timeout", "10s"}, "hello"},
		{[]string{"ack", "--lane", "l1", "--upto", "1"}, "consumed up to 1"},
		{[]string{"park", "--lane", "l1"}, "parked l1"},
		{[]string{"resume", "--lane", "l1"}, "l1"},
		{[]string{"ledger", "report"}, ""},
		{[]string{"ledger", "export"}, `"lane":"l1"`},
		{[]string{"roots"}, "no roots"},
		{[]string{"lease", "acquire", "job", "--ttl", "1m"}, "lease job held"},
		{[]string{"lease", "list"}, "job"},
		{[]string{"lease", "release", "job"}, "lease job released"},
		{[]string{"config", "show"}, "engine.socket_path"},
		{[]string{"config", "show", "--daemon"}, "engine.socket_path"},
	} {
		out, errOut, code := h.inProcess(t, tc.args...)
		if code != 0 || !strings.Contains(out, tc.want) {
			t.Errorf("%v: exit %d, stdout %q (want %q), stderr %q", tc.args, code, out, tc.want, errOut)
		}
	}
	os.Stdout = realStdout
	w.Close()
	if got := <-leaked; got != "" {
		t.Errorf("verbs wrote to the process's stdout instead of their command's output:\n%s", got)
	}
}

// Every verb exits with the error table's status: 2 for a request the
// daemon rejected (a held lease, a lease not held, an unknown lane, a bad
// reminder), 1 for a failure (no daemon), through the real binary.
func TestVerbsExitWithTheTablesCode(t *testing.T) {
	h := newHome(t)
	if _, err := h.run("lease", "list"); exitCode(err) != 1 {
		t.Errorf("lease list with no daemon: exit %d, want 1", exitCode(err))
	}
	d := h.start()
	defer d.stop(t)
	if out, err := h.run("lease", "acquire", "job", "--ttl", "1m"); err != nil {
		t.Fatalf("acquire: %v\n%s", err, out)
	}
	for _, args := range [][]string{
		{"lease", "acquire", "job", "--ttl", "1m"},  // lease_held
		{"lease", "renew", "other", "--ttl", "1m"},  // not_held
		{"ack", "--lane", "nosuch", "--upto", "1"},  // unknown_lane
		{"remind", "x", "--in", "-5s"},              // bad_request
		{"arm", filepath.Join(h.dir, "not-a-root")}, // not_found
	} {
		out, err := h.run(args...)
		if got := exitCode(err); got != 2 {
			t.Errorf("%v: exit %d, want 2\n%s", args, got, out)
		}
		if lines := strings.Split(strings.TrimSpace(out), "\n"); len(lines) != 1 || !strings.HasPrefix(lines[0], "wakewheel: ") {
			t.Errorf("%v: a rejected request prints its error alone, not an empty answer:\n%s", args, out)
		}
	}
}

func exitCode(err error) int {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	if err != nil {
		return -1
	}
	return 0
}
