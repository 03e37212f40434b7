package filetrust

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// otherUID owns the files of the tests that need a foreign owner: chown to
// it needs root, and no account is needed for a bare uid.
const otherUID = 54321

func needRoot(t *testing.T) {
	t.Helper()
	if os.Getuid() != 0 {
		t.Skip("needs root to chown a file to another uid; run the tests as root to cover ownership")
	}
}

func refused(t *testing.T, err error, want ...string) {
	t.Helper()
	if !errors.Is(err, ErrUntrusted) {
		t.Fatalf("got %v, want an ErrUntrusted refusal", err)
	}
	for _, w := range want {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("refusal %q does not say %q", err, w)
		}
	}
}

func TestPrivateDirCreates0700(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "a", "run")
	if err := PrivateDir(dir); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(dir)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o700 {
		t.Fatalf("created mode %04o, want 0700", fi.Mode().Perm())
	}
}

func TestCheckDirRefusesWritableByOthers(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	refused(t, PrivateDir(dir), "mode 0777", "chmod 700 "+dir)
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := CheckDir(dir); err != nil {
		t.Fatalf("a 0755 directory of our own: %v", err)
	}
}

func TestCheckDirRefusesAnotherOwner(t *testing.T) {
	needRoot(t)
	dir := filepath.Join(t.TempDir(), "run")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(dir, otherUID, otherUID); err != nil {
		t.Fatal(err)
	}
	refused(t, CheckDir(dir), "owned by uid 54321", "not by you")
}

func TestCheckFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "config.yaml")
	if err := os.WriteFile(path, []byte("log:\n  level: info\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := CheckFile(path); err != nil {
		t.Fatalf("a 0600 file of our own: %v", err)
	}
	if err := os.Chmod(path, 0o666); err != nil {
		t.Fatal(err)
	}
	refused(t, CheckFile(path), "mode 0666", "chmod go-w "+path)
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	// a link is judged by the file it points to
	link := filepath.Join(dir, "link.yaml")
	if err := os.Symlink(path, link); err != nil {
		t.Fatal(err)
	}
	if err := CheckFile(link); err != nil {
		t.Fatalf("a link to a good file: %v", err)
	}
	if err := os.Chmod(path, 0o620); err != nil {
		t.Fatal(err)
	}
	refused(t, CheckFile(link), "-> "+path)
}

func TestCheckFileRefusesAnOpenDirectory(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "shared")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "hook.sh")
	if err := os.WriteFile(path, []byte("#!/bin/sh\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	refused(t, CheckFile(path), "directory "+dir, "replace the file")
	// sticky, as /tmp: others cannot rename our file away
	if err := os.Chmod(dir, 0o777|os.ModeSticky); err != nil {
		t.Fatal(err)
	}
	if err := CheckFile(path); err != nil {
		t.Fatalf("a file of ours in a sticky directory: %v", err)
	}
}

func TestCheckFileOwners(t *testing.T) {
	needRoot(t)
	path := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(path, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(path, otherUID, otherUID); err != nil {
		t.Fatal(err)
	}
	refused(t, CheckFile(path), "owned by uid 54321", "or root")
}

func TestCheckSecret(t *testing.T) {
	path := filepath.Join(t.TempDir(), "beacon.key")
	if err := os.WriteFile(path, []byte("k"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := CheckSecret(path); err != nil {
		t.Fatalf("a 0600 key: %v", err)
	}
	if err := os.Chmod(path, 0o640); err != nil {
		t.Fatal(err)
	}
	refused(t, CheckSecret(path), "mode 0640", "chmod 600 "+path)
}
