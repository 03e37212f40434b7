package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The daemon's binary must never link nats-server again: its server/pse
// package starts, from init, a sampler that wakes every process linking it
// once a second (the idle daemon went from 0.42 to 17–24 wake-ups a
// second). The broker's program links it; wakewheel runs that program.
func TestTheDaemonDoesNotLinkNATSServer(t *testing.T) {
	deps := func(pkg string) []string {
		out, err := exec.Command("go", "list", "-deps", pkg).Output()
		if err != nil {
			t.Fatalf("go list -deps %s: %v", pkg, err)
		}
		return strings.Fields(string(out))
	}
	const server = "github.com/nats-io/nats-server/"
	linked := func(list []string) []string {
		var got []string
		for _, p := range list {
			if strings.HasPrefix(p, server) {
				got = append(got, p)
			}
		}
		return got
	}
	if got := linked(deps("github.com/wakewheel/wakewheel/cmd/wakewheel-broker")); len(got) == 0 {
		t.Fatalf("the broker's program does not link %s: this test would see nothing", server)
	}
	if got := linked(deps("github.com/wakewheel/wakewheel/cmd/wakewheel")); len(got) > 0 {
		t.Errorf("cmd/wakewheel links %v: put the server side in fleet/broker, run by %s", got, brokerProgram)
	}
}

// fakeBroker writes an executable wakewheel-broker into dir that prints
// its arguments and exits with code.
func fakeBroker(t *testing.T, dir, says, code string) string {
	t.Helper()
	p := filepath.Join(dir, brokerProgram)
	if err := os.WriteFile(p, []byte("#!/bin/sh\necho "+says+" \"$@\" >&2\nexit "+code+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestTheBrokerProgramIsFoundBesideWakewheelThenOnPath(t *testing.T) {
	self, path := t.TempDir(), t.TempDir()
	t.Setenv("PATH", path)
	if _, err := lookBroker(filepath.Join(self, "wakewheel")); err == nil ||
		!strings.Contains(err.Error(), "neither beside this wakewheel ("+filepath.Join(self, brokerProgram)+") nor on PATH") ||
		!strings.Contains(err.Error(), "make install") {
		t.Errorf("no broker program anywhere: %v", err)
	}
	onPath := fakeBroker(t, path, "path", "0")
	if got, err := lookBroker(filepath.Join(self, "wakewheel")); err != nil || got != onPath {
		t.Errorf("only on PATH: %q %v", got, err)
	}
	beside := fakeBroker(t, self, "beside", "0")
	if got, err := lookBroker(filepath.Join(self, "wakewheel")); err != nil || got != beside {
		t.Errorf("beside and on PATH: %q %v, want the one beside", got, err)
	}
}

// `wakewheel broker` becomes the broker's program: the flags reach it, and
// its exit status and its words are the verb's.
func TestBrokerVerbRunsTheBrokerProgramInItsPlace(t *testing.T) {
	h := newHome(t)
	path := t.TempDir()
	fakeBroker(t, path, "node", "3")
	cmd := h.command("broker", "--name", "a", "--store", "/s", "--cluster", "127.0.0.1:6222", "--routes", "nats://127.0.0.1:6223")
	cmd.Env = append(cmd.Env, "PATH="+path+":/usr/bin:/bin")
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 3 {
		t.Fatalf("exit: %v, want the program's 3\n%s", err, out)
	}
	want := "node --name a --listen 127.0.0.1:4222 --store /s --log-level info --log-format json --cluster 127.0.0.1:6222 --routes nats://127.0.0.1:6223"
	if strings.TrimSpace(string(out)) != want {
		t.Errorf("the program got\n%s\nwant\n%s", out, want)
	}

	cmd = h.command("broker", "--name", "a", "--store", "/s")
	cmd.Env = append(cmd.Env, "PATH="+t.TempDir())
	out, err = cmd.CombinedOutput()
	if !errors.As(err, &ee) || ee.ExitCode() != 1 || !strings.Contains(string(out), "wakewheel: the broker is a program of its own, wakewheel-broker") {
		t.Errorf("no broker program: %v\n%s", err, out)
	}
}
