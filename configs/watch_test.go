package configs

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// writeAtomic replaces path the way careful editors do: write a sibling,
// then rename it over the original.
func writeAtomic(t *testing.T, path, content string) {
	t.Helper()
	tmp := filepath.Join(filepath.Dir(path), ".tmp-"+filepath.Base(path))
	if err := os.WriteFile(tmp, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
}

// watchTimeout bounds the wait for an fsnotify event; events normally
// arrive within milliseconds plus reloadSettle.
const watchTimeout = 10 * time.Second

func TestWatch(t *testing.T) {
	path := writeFile(t, t.TempDir(), "config.yaml", "engine:\n  tick: 2ms\n")
	changes := make(chan Config, 16)
	errs := make(chan error, 16)
	stop, err := WatchWith(LoadOptions{File: path, Env: testEnv(t)},
		func(c Config, eff *Effective) {
			if en, _ := eff.Lookup("engine.tick"); en.Source != "file "+path {
				t.Errorf("reloaded engine.tick source %q", en.Source)
			}
			changes <- c
		},
		func(err error) { errs <- err })
	if err != nil {
		t.Fatal(err)
	}
	defer stop()

	next := func() (Config, error) {
		t.Helper()
		select {
		case c := <-changes:
			return c, nil
		case err := <-errs:
			return Config{}, err
		case <-time.After(watchTimeout):
			t.Fatal("no callback after a write")
		}
		return Config{}, nil
	}

	writeAtomic(t, path, "engine:\n  tick: 3ms\n")
	if c, err := next(); err != nil || c.Engine.Tick != 3*time.Millisecond {
		t.Fatalf("after a valid change: tick %v, err %v; want 3ms", c.Engine.Tick, err)
	}

	writeAtomic(t, path, "engine:\n  tick: 5s\n")
	_, err = next()
	want := `config: engine.tick = "5s" (from file ` + path + `): must be between 100µs and 1s`
	if err == nil || err.Error() != want || !errors.Is(err, ErrInvalid) {
		t.Fatalf("after an invalid change: err %v; want %s", err, want)
	}

	// The next callback is for the next good file: nothing was delivered
	// for the bad one, so 3ms stayed in force until now.
	writeAtomic(t, path, "engine:\n  tick: 4ms\n")
	if c, err := next(); err != nil || c.Engine.Tick != 4*time.Millisecond {
		t.Fatalf("after a valid change: tick %v, err %v; want 4ms", c.Engine.Tick, err)
	}

	stop()
	writeAtomic(t, path, "engine:\n  tick: 6ms\n")
	time.Sleep(3 * reloadSettle)
	select {
	case c := <-changes:
		t.Errorf("callback after stop: tick %v", c.Engine.Tick)
	case err := <-errs:
		t.Errorf("callback after stop: %v", err)
	default:
	}
}

func TestWatchNeedsAValidFile(t *testing.T) {
	dir := t.TempDir()
	if _, err := Watch(filepath.Join(dir, "missing.yaml"), nil, nil); !errors.Is(err, ErrFile) {
		t.Errorf("missing file: err %v, want ErrFile", err)
	}
	bad := writeFile(t, dir, "config.yaml", "engine:\n  tick: never\n")
	if _, err := WatchWith(LoadOptions{File: bad, Env: testEnv(t)}, nil, nil); err == nil || !strings.Contains(err.Error(), "not a duration") {
		t.Errorf("invalid file: err %v, want the validation error", err)
	}
	if _, err := WatchWith(LoadOptions{Env: testEnv(t)}, nil, nil); !errors.Is(err, ErrFile) {
		t.Errorf("no file found: err %v, want ErrFile", err)
	}
}
