package supervise

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestResolve(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "scripts"), 0o755); err != nil {
		t.Fatal(err)
	}
	exe := filepath.Join(dir, "scripts", "index")
	if err := os.WriteFile(exe, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	plain := filepath.Join(dir, "scripts", "notes.txt")
	if err := os.WriteFile(plain, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	spaced := filepath.Join(dir, "my scripts")
	if err := os.MkdirAll(spaced, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(spaced, "run"), nil, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ line, want, err string }{
		{"", "", ""},
		{"./scripts/index --all", exe + " --all", ""},
		{"scripts/index", exe, ""},
		{"FOO=1 ./scripts/index", "FOO=1 " + exe, ""},
		{exe + " -v", exe + " -v", ""},
		{"cat > /dev/null", "cat > /dev/null", ""},
		{"xargs -0 grep -l x", "xargs -0 grep -l x", ""},
		{"exit 75", "exit 75", ""},
		{"cd web && make index", "cd web && make index", ""},
		{`"$HOME/bin/x"`, `"$HOME/bin/x"`, ""},
		{"./scripts/index;echo done", exe + ";echo done", ""},
		{"./missing --all", "", "does not exist (./missing taken from " + dir + ")"},
		{"./scripts/notes.txt", "", "is not executable (chmod +x"},
		{"./scripts", "", "is a directory"},
		{"nosuchprogram-wakewheel --x", "", `"nosuchprogram-wakewheel" is not a command found in PATH`},
	} {
		got, err := Resolve(c.line, dir)
		if c.err != "" {
			if !errors.Is(err, ErrBadCommand) || !strings.Contains(err.Error(), c.err) {
				t.Errorf("Resolve(%q) = %q, %v; want an error with %q", c.line, got, err, c.err)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("Resolve(%q) = %q, %v; want %q", c.line, got, err, c.want)
		}
	}
	got, err := Resolve("./run --fast", spaced)
	if want := "'" + filepath.Join(spaced, "run") + "' --fast"; err != nil || got != want {
		t.Errorf("spaced dir: %q, %v; want %q", got, err, want)
	}
}

// Program names the file Resolve checks, or none.
func TestProgram(t *testing.T) {
	for _, c := range []struct{ line, dir, want string }{
		{"./scripts/index --all", "/r", "/r/scripts/index"},
		{"FOO=1 bin/x", "/r", "/r/bin/x"},
		{"/usr/bin/x;echo done", "", "/usr/bin/x"},
		{"bin/x", "", ""},
		{"make index", "/r", ""},
		{"cd web && ./x", "/r", ""},
		{`"$HOME/bin/x"`, "/r", ""},
		{"", "/r", ""},
	} {
		got, ok := Program(c.line, c.dir)
		if got != c.want || ok != (c.want != "") {
			t.Errorf("Program(%q, %q) = %q, %v; want %q", c.line, c.dir, got, ok, c.want)
		}
	}
}
