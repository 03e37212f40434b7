package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// openDir returns a fresh directory with the given mode, short enough for
// a unix socket path inside it.
func openDir(t *testing.T, mode os.FileMode) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "wwt")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, mode); err != nil {
		t.Fatal(err)
	}
	return dir
}

// The client checks who serves the socket before it sends a byte: with
// the socket's directory world-writable, another user binds their own
// socket there; a post is refused with a clear error, and the other user's
// server received nothing (not the message, not even a request line).
func TestClientRefusesASocketServedByAnotherUser(t *testing.T) {
	u := secondUser(t)
	h := newHome(t)
	h.socket = filepath.Join(openDir(t, 0o777), "s.sock")
	h.env = append(h.env, "WAKEWHEEL_ENGINE_SOCKET_PATH="+h.socket)
	srv := startHostile(t, u, h.socket)

	out, err := h.run("post", "--lane", "L", "--class", "human", "--create", "my secret token")
	if err == nil || strings.Contains(out, "posted") {
		t.Fatalf("the post went to another user's socket: %v\n%s", err, out)
	}
	for _, want := range []string{h.socket, "served by uid " + strconv.Itoa(u.uid) + " (" + u.name + ")", "not by you", "nothing was sent", "chmod 700"} {
		if !strings.Contains(out, want) {
			t.Errorf("the refusal does not say %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "panic") || strings.Contains(out, "goroutine") {
		t.Fatalf("internals reached the user:\n%s", out)
	}
	conns := srv.connections(t)
	if len(conns) == 0 {
		t.Fatal("the client never connected: the test proves nothing")
	}
	for i, n := range conns {
		if n != 0 {
			t.Errorf("connection %d: the other user's server received %d bytes", i+1, n)
		}
	}
}

// The daemon refuses a socket directory that others can write to (with the
// fix), and one that another user owns; it creates a missing one 0700.
func TestDaemonRefusesAnUntrustedSocketDirectory(t *testing.T) {
	h := newHome(t)
	open := openDir(t, 0o777)
	h.env = append(h.env, "WAKEWHEEL_ENGINE_SOCKET_PATH="+filepath.Join(open, "s.sock"))
	out, err := runBounded(t, h.command("daemon"))
	if err == nil {
		t.Fatalf("the daemon served in a 0777 directory:\n%s", out)
	}
	for _, want := range []string{"socket directory", open, "mode 0777", "chmod 700 " + open} {
		if !strings.Contains(out, want) {
			t.Errorf("the refusal does not say %q:\n%s", want, out)
		}
	}
	if _, err := os.Stat(filepath.Join(open, "s.sock")); err == nil {
		t.Error("a socket was created in the refused directory")
	}

	fresh := filepath.Join(openDir(t, 0o700), "run", "ww")
	h.socket = filepath.Join(fresh, "s.sock")
	h.env = append(h.env, "WAKEWHEEL_ENGINE_SOCKET_PATH="+h.socket)
	d := h.start()
	fi, err := os.Stat(fresh)
	d.stop(t)
	if err != nil || fi.Mode().Perm() != 0o700 {
		t.Fatalf("the missing socket directory was created %v (%v), want 0700", fi.Mode().Perm(), err)
	}

	u := secondUser(t)
	theirs := openDir(t, 0o700)
	if err := os.Chown(theirs, u.uid, u.gid); err != nil {
		t.Fatal(err)
	}
	h.env = append(h.env, "WAKEWHEEL_ENGINE_SOCKET_PATH="+filepath.Join(theirs, "s.sock"))
	out, err = runBounded(t, h.command("daemon"))
	if err == nil || !strings.Contains(out, "owned by uid "+strconv.Itoa(u.uid)+" ("+u.name+")") {
		t.Fatalf("the daemon served in another user's directory: %v\n%s", err, out)
	}
}

// A config file that others can write is refused at start, and a change to
// it on reload: another user who edits a 0666 config.yaml to add a wake
// hook never gets it run. Once the mode is fixed, a change reloads and the
// hook runs (so the refusal is not an accident of the test).
func TestWorldWritableConfigIsRefusedAtStartAndOnReload(t *testing.T) {
	u := secondUser(t)
	h := newHome(t)
	cfgDir := openDir(t, 0o755)
	cfg := filepath.Join(cfgDir, "config.yaml")
	marker := filepath.Join(openDir(t, 0o777), "hook-ran")
	if err := os.WriteFile(cfg, []byte("log:\n  level: info\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(cfg, 0o666); err != nil {
		t.Fatal(err)
	}
	out, err := runBounded(t, h.command("daemon", "--config", cfg))
	if err == nil {
		t.Fatalf("the daemon started with a world-writable config:\n%s", out)
	}
	for _, want := range []string{"refusing the config file", cfg, "mode 0666", "chmod go-w " + cfg} {
		if !strings.Contains(out, want) {
			t.Errorf("the refusal does not say %q:\n%s", want, out)
		}
	}

	if err := os.Chmod(cfg, 0o644); err != nil {
		t.Fatal(err)
	}
	d := h.startWith("daemon", "--config", cfg)
	defer d.stop(t)
	if out, err := h.run("lanes", "--open", "rev"); err != nil {
		t.Fatalf("lanes --open: %v\n%s", err, out)
	}
	// The neighbour finds the file world-writable and adds a hook.
	if err := os.Chmod(cfg, 0o666); err != nil {
		t.Fatal(err)
	}
	hooked := "log:\n  level: info\nlanes:\n  rev:\n    wake_hook: touch " + marker + "\n"
	u.run(t, "sh", "-c", `printf '%s' "$1" > "$2"`, "sh", hooked, cfg)
	eventually(t, "the edit to be rejected", func() bool {
		return strings.Contains(h.daemonConfig(t).Reload.LastError, "refusing the config file")
	})
	if out, err := h.run("post", "--lane", "rev", "--class", "human", "after the edit"); err != nil {
		t.Fatalf("post: %v\n%s", err, out)
	}
	time.Sleep(time.Second) // a hook runs within milliseconds of the post
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the wake hook another user wrote into the config file ran")
	}

	// Fixed by its owner: the next change is taken.
	if err := os.Chmod(cfg, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cfg, []byte(hooked+"# reviewed\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the fixed file to be reloaded", func() bool {
		return h.daemonConfig(t).Reload.LastError == ""
	})
	if out, err := h.run("post", "--lane", "rev", "--class", "human", "after the fix"); err != nil {
		t.Fatalf("post: %v\n%s", err, out)
	}
	eventually(t, "the reviewed hook to run", func() bool {
		_, err := os.Stat(marker)
		return err == nil
	})
}

// runBounded runs cmd and fails the test if it does not exit within 20 s
// (a daemon that was meant to refuse but started instead).
func runBounded(t *testing.T, cmd *exec.Cmd) (string, error) {
	t.Helper()
	var buf strings.Builder
	cmd.Stdout, cmd.Stderr = &buf, &buf
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		return buf.String(), err
	case <-time.After(20 * time.Second):
		cmd.Process.Kill()
		<-done
		t.Fatalf("%v did not exit within 20s:\n%s", cmd.Args, buf.String())
		return "", nil
	}
}
