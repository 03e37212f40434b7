package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// run's exit status and words for args, with stderr in a file.
func runArgs(t *testing.T, args ...string) (int, string) {
	t.Helper()
	f, err := os.Create(filepath.Join(t.TempDir(), "stderr"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	code := run(args, f)
	b, _ := os.ReadFile(f.Name())
	return code, string(b)
}

// The program's errors read as the wakewheel verb's, with its exit codes:
// 2 for a command line it cannot take, 1 for a node that cannot start.
func TestErrorsAndExitCodes(t *testing.T) {
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--name", "a", "--bogus"}, 2, "wakewheel: unknown flag: --bogus"},
		{[]string{"--name", "a", "--store", "s", "extra"}, 2, "takes no arguments"},
		{[]string{"--name", "a.b", "--store", t.TempDir()}, 1, "wakewheel: broker name \"a.b\": want a word"},
		{[]string{"--name", "a", "--store", t.TempDir(), "--routes", "nats://127.0.0.1:1"}, 1, "wakewheel: --routes needs --cluster"},
	} {
		code, out := runArgs(t, c.args...)
		if code != c.code || !strings.Contains(out, c.want) {
			t.Errorf("%v: exit %d, %q; want %d and %q", c.args, code, out, c.code, c.want)
		}
	}
	if code, out := runArgs(t, "--help"); code != 0 || !strings.Contains(out, "wakewheel broker") {
		t.Errorf("--help: exit %d, %q", code, out)
	}
}
