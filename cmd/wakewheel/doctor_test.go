package main

import (
	"encoding/json"
	"errors"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// doctorJSON runs `wakewheel doctor --json` and returns its findings by
// check, and whether it exited 0.
func (h *home) doctorJSON(t *testing.T) (map[string]finding, bool) {
	t.Helper()
	out, err := h.command("doctor", "--json").Output()
	var fs []finding
	if jerr := json.Unmarshal(out, &fs); jerr != nil {
		t.Fatalf("doctor --json: %v %v\n%s", err, jerr, out)
	}
	byCheck := map[string]finding{}
	for _, f := range fs {
		byCheck[f.Check] = f
	}
	return byCheck, err == nil
}

func wantFinding(t *testing.T, fs map[string]finding, check string, want level, detail ...string) {
	t.Helper()
	f := fs[check]
	if f.Level != want {
		t.Errorf("%s: %s %q (fix %q), want %s", check, f.Level, f.Detail, f.Fix, want)
	}
	for _, d := range detail {
		if !strings.Contains(f.Detail+" "+f.Fix, d) {
			t.Errorf("%s: %q (fix %q) does not mention %q", check, f.Detail, f.Fix, d)
		}
	}
	if want != levelOK && want != levelSkipped && f.Fix == "" {
		t.Errorf("%s: a %s without a fix", check, want)
	}
}

func TestDoctorThroughTheDaemonAndWithout(t *testing.T) {
	h := newHome(t)
	fs, _ := h.doctorJSON(t)
	wantFinding(t, fs, "socket", levelWarn, "no daemon is running", "wakewheel daemon")
	wantFinding(t, fs, "store", levelOK, "no store yet")
	wantFinding(t, fs, "config", levelOK, "defaults")

	d := h.start()
	if out, err := h.run("remind", "kept", "--in", "1h", "--sync"); err != nil {
		t.Fatalf("remind: %v\n%s", err, out)
	}
	fs, _ = h.doctorJSON(t)
	wantFinding(t, fs, "socket", levelOK, "the daemon answers", "1 pending")
	wantFinding(t, fs, "store", levelOK, "open in the daemon")
	d.stop(t)

	fs, _ = h.doctorJSON(t)
	wantFinding(t, fs, "store", levelOK, "healthy, 1 deadlines persisted")
}

func TestDoctorFindsAStaleSocketWithTheWrongMode(t *testing.T) {
	h := newHome(t)
	ln, err := net.Listen("unix", h.socket)
	if err != nil {
		t.Fatal(err)
	}
	ln.(*net.UnixListener).SetUnlinkOnClose(false)
	ln.Close()
	if err := os.Chmod(h.socket, 0o644); err != nil {
		t.Fatal(err)
	}
	fs, ok := h.doctorJSON(t)
	if ok {
		t.Error("doctor exited 0 with a problem")
	}
	wantFinding(t, fs, "socket", levelProblem, "mode 0644, want 0600", "no daemon answers", "chmod 600", "replaces a stale socket")
}

func TestDoctorFindsACorruptStore(t *testing.T) {
	h := newHome(t)
	d := h.start()
	d.stop(t)
	manifests, _ := filepath.Glob(filepath.Join(h.dir, "store", "MANIFEST-*"))
	for _, m := range manifests {
		if err := os.WriteFile(m, []byte("not a manifest"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	fs, ok := h.doctorJSON(t)
	if ok {
		t.Error("doctor exited 0 with a corrupt store")
	}
	wantFinding(t, fs, "store", levelProblem, "corrupt", "wakewheel repair")
}

func TestDoctorReportsAnInvalidConfigAndCarriesOn(t *testing.T) {
	h := newHome(t)
	h.writeConfig(t, "detect:\n  burst_silence: forever\n")
	fs, ok := h.doctorJSON(t)
	if ok {
		t.Error("doctor exited 0 with an invalid config")
	}
	wantFinding(t, fs, "config", levelProblem, "detect.burst_silence", "config show")
	wantFinding(t, fs, "socket", levelWarn, h.socket)
}

func TestCheckInotify(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("inotify is Linux's")
	}
	dir := t.TempDir()
	write := func(name, v string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(v+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("max_user_watches", "8192")
	write("max_user_instances", "128")
	if f := checkInotify(dir, 8192); f.Level != levelOK {
		t.Errorf("at the budget: %+v", f)
	}
	f := checkInotify(dir, 10000)
	if f.Level != levelProblem || !strings.Contains(f.Fix, "sysctl fs.inotify.max_user_watches=524288") ||
		!strings.Contains(f.Fix, "detect.watch_budget to 8192") {
		t.Errorf("below the budget: %+v", f)
	}
	write("max_user_instances", "16")
	if f := checkInotify(dir, 100); f.Level != levelWarn || !strings.Contains(f.Fix, "max_user_instances=1024") {
		t.Errorf("few instances: %+v", f)
	}
	if f := checkInotify(filepath.Join(dir, "missing"), 100); f.Level != levelWarn {
		t.Errorf("unreadable limits: %+v", f)
	}
}

func TestCheckGit(t *testing.T) {
	f := checkGit(func(string) (string, error) { return "", errors.New("not found") })
	if f.Level != levelProblem || !strings.Contains(f.Fix, "install git 2.11") {
		t.Errorf("no git: %+v", f)
	}
	fake := filepath.Join(t.TempDir(), "git")
	if err := os.WriteFile(fake, []byte("#!/bin/sh\necho git version 2.9.5\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	f = checkGit(func(string) (string, error) { return fake, nil })
	if f.Level != levelProblem || !strings.Contains(f.Fix, "upgrade git") {
		t.Errorf("old git: %+v", f)
	}
}
