package configs

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/pflag"
)

// testEnv is a hermetic environment: HOME is a fresh temporary directory
// (so no real config file is ever found) plus the given NAME=value pairs.
func testEnv(t *testing.T, pairs ...string) func(string) (string, bool) {
	t.Helper()
	vars := map[string]string{"HOME": t.TempDir()}
	for _, p := range pairs {
		name, value, ok := strings.Cut(p, "=")
		if !ok {
			t.Fatalf("testEnv: %q is not NAME=value", p)
		}
		vars[name] = value
	}
	return func(name string) (string, bool) {
		v, ok := vars[name]
		return v, ok
	}
}

// writeFile writes content to dir/name and returns the path.
func writeFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// flagsWith returns a FlagSet from AddFlags, parsed from args.
func flagsWith(t *testing.T, args ...string) *pflag.FlagSet {
	t.Helper()
	fs := pflag.NewFlagSet("test", pflag.ContinueOnError)
	AddFlags(fs)
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	return fs
}

// mustLoad loads and fails the test on error.
func mustLoad(t *testing.T, opts LoadOptions) (Config, *Effective) {
	t.Helper()
	c, eff, err := Load(opts)
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	return c, eff
}

// loadError loads, expects an error, and returns its lines.
func loadError(t *testing.T, opts LoadOptions) (error, []string) {
	t.Helper()
	_, _, err := Load(opts)
	if err == nil {
		t.Fatal("Load succeeded; want an error")
	}
	return err, strings.Split(err.Error(), "\n")
}

func entry(t *testing.T, eff *Effective, key string) Entry {
	t.Helper()
	en, ok := eff.Lookup(key)
	if !ok {
		t.Fatalf("Effective has no %s", key)
	}
	return en
}

func isKeyError(err error, sentinel error) bool {
	var ke *KeyError
	return errors.As(err, &ke) && errors.Is(err, sentinel)
}
