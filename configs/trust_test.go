package configs

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A config file that group or others can write is refused with the fix;
// once fixed, it loads.
func TestLoadRefusesAWritableConfigFile(t *testing.T) {
	dir := t.TempDir()
	path := writeFile(t, dir, "config.yaml", "log:\n  level: debug\n")
	if err := os.Chmod(path, 0o666); err != nil {
		t.Fatal(err)
	}
	err, _ := loadError(t, LoadOptions{File: path, Env: testEnv(t)})
	if !errors.Is(err, ErrUntrusted) {
		t.Fatalf("got %v, want ErrUntrusted", err)
	}
	for _, want := range []string{"refusing the config file", path, "mode 0666", "chmod go-w " + path} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%q does not say %q", err, want)
		}
	}
	if strings.Contains(err.Error(), "not trusted: not trusted") {
		t.Errorf("the reason repeats itself: %q", err)
	}
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	if c, _ := mustLoad(t, LoadOptions{File: path, Env: testEnv(t)}); c.Log.Level != "debug" {
		t.Fatalf("log.level = %q after the fix", c.Log.Level)
	}
}

// The programs the file names (a root's commands, a lane's hook) follow the
// file's rule; a bare program name or a missing file is not this check's.
func TestLoadRefusesAWritableProgram(t *testing.T) {
	dir := t.TempDir()
	root := filepath.Join(dir, "repo")
	script := writeFile(t, root, "scripts/index", "#!/bin/sh\n")
	hook := writeFile(t, dir, "hook.sh", "#!/bin/sh\n")
	for _, p := range []string{script, hook} {
		if err := os.Chmod(p, 0o777); err != nil {
			t.Fatal(err)
		}
	}
	path := writeFile(t, dir, "config.yaml", `roots:
  - path: `+root+`
    ingest: ./scripts/index --all
    reconcile: git status
lanes:
  rev:
    wake_hook: `+hook+` now
  other:
    wake_hook: /nonexistent/hook
`)
	err, lines := loadError(t, LoadOptions{File: path, Env: testEnv(t)})
	if !errors.Is(err, ErrUntrusted) || len(lines) != 2 {
		t.Fatalf("got %d problems, want the ingest and rev's hook:\n%v", len(lines), err)
	}
	if !strings.Contains(lines[0], "lanes.rev.wake_hook") || !strings.Contains(lines[0], "chmod go-w "+hook) {
		t.Errorf("line 1: %s", lines[0])
	}
	if !strings.Contains(lines[1], "roots[0].ingest") || !strings.Contains(lines[1], "names "+script) {
		t.Errorf("line 2: %s", lines[1])
	}
}

func TestLoadRefusesAConfigFileOfAnotherUser(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("needs root to chown the file to another uid")
	}
	path := writeFile(t, t.TempDir(), "config.yaml", "")
	if err := os.Chown(path, 54321, 54321); err != nil {
		t.Fatal(err)
	}
	err, _ := loadError(t, LoadOptions{File: path, Env: testEnv(t)})
	if !errors.Is(err, ErrUntrusted) || !strings.Contains(err.Error(), "owned by uid 54321") {
		t.Fatalf("got %v", err)
	}
}
