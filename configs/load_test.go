package configs

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestPrecedence walks one key up through all four layers.
func TestPrecedence(t *testing.T) {
	dir := t.TempDir()
	file := writeFile(t, dir, "config.yaml", "engine:\n  tick: 2ms\n")
	cases := []struct {
		name       string
		opts       LoadOptions
		want       time.Duration
		wantSource string
	}{
		{"default", LoadOptions{Env: testEnv(t)}, time.Millisecond, "default"},
		{"file over default", LoadOptions{File: file, Env: testEnv(t)}, 2 * time.Millisecond, "file " + file},
		{"env over file", LoadOptions{File: file, Env: testEnv(t, "WAKEWHEEL_ENGINE_TICK=3ms")}, 3 * time.Millisecond, "env"},
		{"flag over env", LoadOptions{File: file, Env: testEnv(t, "WAKEWHEEL_ENGINE_TICK=3ms"), Flags: flagsWith(t, "--engine.tick=4ms")},
			4 * time.Millisecond, "flag"},
		{"unchanged flag does not count", LoadOptions{File: file, Env: testEnv(t, "WAKEWHEEL_ENGINE_TICK=3ms"), Flags: flagsWith(t)},
			3 * time.Millisecond, "env"},
		{"flag over default alone", LoadOptions{Env: testEnv(t), Flags: flagsWith(t, "--engine.tick", "4ms")}, 4 * time.Millisecond, "flag"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, eff := mustLoad(t, tc.opts)
			if c.Engine.Tick != tc.want {
				t.Errorf("Tick = %v, want %v", c.Engine.Tick, tc.want)
			}
			en := entry(t, eff, "engine.tick")
			if en.Source != tc.wantSource || en.Value != formatDuration(tc.want) {
				t.Errorf("Effective = %+v, want value %s from %s", en, formatDuration(tc.want), tc.wantSource)
			}
			// The other keys stay at their defaults whatever the layers.
			if en := entry(t, eff, "engine.retry_base"); en.Source != "default" {
				t.Errorf("engine.retry_base source = %q", en.Source)
			}
		})
	}
}

func TestEffectiveValuesAreCanonical(t *testing.T) {
	_, eff := mustLoad(t, LoadOptions{Env: testEnv(t,
		"WAKEWHEEL_DETECT_BURST_CAP=5000ms",
		"WAKEWHEEL_ENGINE_STORE_DIR=/srv//ww/",
		"WAKEWHEEL_METRICS_ALLOW_REMOTE=1",
	)})
	for key, want := range map[string]string{
		"detect.burst_cap":     "5s",
		"engine.store_dir":     "/srv/ww",
		"metrics.allow_remote": "true",
	} {
		if en := entry(t, eff, key); en.Value != want || en.Source != "env" {
			t.Errorf("%s = %+v, want %q from env", key, en, want)
		}
	}
	if got := entry(t, eff, "detect.burst_cap").Origin(); got != "env WAKEWHEEL_DETECT_BURST_CAP" {
		t.Errorf("Origin() = %q", got)
	}
}

// TestFileFormats reads the same settings from each supported format,
// including numbers decoded as float (JSON) and int64 (TOML).
func TestFileFormats(t *testing.T) {
	files := map[string]string{
		"config.yaml": "engine:\n  tick: 2ms\ndetect:\n  drain_budget: 64\nmetrics:\n  allow_remote: true\n",
		"config.toml": "[engine]\ntick = \"2ms\"\n[detect]\ndrain_budget = 64\n[metrics]\nallow_remote = true\n",
		"config.json": `{"engine": {"tick": "2ms"}, "detect": {"drain_budget": 64}, "metrics": {"allow_remote": true}}`,
	}
	for name, content := range files {
		t.Run(name, func(t *testing.T) {
			home := t.TempDir()
			xdg := filepath.Join(home, "xdg-config")
			path := writeFile(t, filepath.Join(xdg, "wakewheel"), name, content)
			c, eff := mustLoad(t, LoadOptions{Env: testEnv(t, "HOME="+home, "XDG_CONFIG_HOME="+xdg)})
			if c.Engine.Tick != 2*time.Millisecond || c.Detect.DrainBudget != 64 || !c.Metrics.AllowRemote {
				t.Errorf("got tick %v, budget %d, allow_remote %v", c.Engine.Tick, c.Detect.DrainBudget, c.Metrics.AllowRemote)
			}
			if got := entry(t, eff, "detect.drain_budget").Source; got != "file "+path {
				t.Errorf("source = %q, want file %s", got, path)
			}
		})
	}
}

func TestSearchFallsBackToHomeConfig(t *testing.T) {
	home := t.TempDir()
	writeFile(t, filepath.Join(home, ".config", "wakewheel"), "config.yaml", "log:\n  level: debug\n")
	c, _ := mustLoad(t, LoadOptions{Env: testEnv(t, "HOME="+home)})
	if c.Log.Level != "debug" {
		t.Errorf("Log.Level = %q, want debug from ~/.config/wakewheel/config.yaml", c.Log.Level)
	}
}

func TestMissingFileIsFine(t *testing.T) {
	xdg := t.TempDir() // no wakewheel directory at all
	if _, _, err := Load(LoadOptions{Env: testEnv(t, "XDG_CONFIG_HOME="+xdg)}); err != nil {
		t.Fatalf("Load without a config file: %v", err)
	}
	// An empty file is a file with no settings.
	path := writeFile(t, t.TempDir(), "config.yaml", "")
	if _, _, err := Load(LoadOptions{File: path, Env: testEnv(t)}); err != nil {
		t.Fatalf("Load with an empty file: %v", err)
	}
}

func TestExplicitFileMustExist(t *testing.T) {
	path := filepath.Join(t.TempDir(), "nope.yaml")
	err, _ := loadError(t, LoadOptions{File: path, Env: testEnv(t)})
	if !errors.Is(err, ErrFile) || !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), path) {
		t.Errorf("err = %v; want ErrFile naming %s", err, path)
	}
}

func TestBadFiles(t *testing.T) {
	dir := t.TempDir()
	cases := map[string]string{
		"unparsable yaml": writeFile(t, dir, "bad.yaml", "engine:\n  tick: [1ms\n"),
		"unparsable json": writeFile(t, dir, "bad.json", `{"engine": `),
		"unparsable toml": writeFile(t, dir, "bad.toml", "[engine\n"),
		"unknown format":  writeFile(t, dir, "config.ini.txt", "tick=1ms\n"),
		"a directory":     filepath.Join(dir, "dir.yaml"),
	}
	if err := os.Mkdir(cases["a directory"], 0o755); err != nil {
		t.Fatal(err)
	}
	for name, path := range cases {
		t.Run(name, func(t *testing.T) {
			err, lines := loadError(t, LoadOptions{File: path, Env: testEnv(t)})
			if !errors.Is(err, ErrFile) || !strings.HasPrefix(lines[0], "config: unusable config file "+path+": ") {
				t.Errorf("err = %v; want ErrFile naming %s", err, path)
			}
		})
	}
}

func TestTwoConfigFilesAreAmbiguous(t *testing.T) {
	xdg := t.TempDir()
	a := writeFile(t, filepath.Join(xdg, "wakewheel"), "config.yaml", "")
	b := writeFile(t, filepath.Join(xdg, "wakewheel"), "config.json", "{}")
	err, _ := loadError(t, LoadOptions{Env: testEnv(t, "XDG_CONFIG_HOME="+xdg)})
	if !errors.Is(err, ErrFile) || !strings.Contains(err.Error(), a) || !strings.Contains(err.Error(), b) {
		t.Errorf("err = %v; want ErrFile naming both files", err)
	}
}

func TestUnknownKeys(t *testing.T) {
	path := writeFile(t, t.TempDir(), "config.yaml",
		"engine:\n  tik: 2ms\n  tick: 2ms\ndetect: 5\nlog:\n  levl: info\ncolour: blue\n")
	err, lines := loadError(t, LoadOptions{File: path, Env: testEnv(t)})
	want := []string{
		`config: unknown key "colour" in file ` + path,
		`config: unknown key "detect" in file ` + path + ` (detect is a section, not a value)`,
		`config: unknown key "engine.tik" in file ` + path + ` (did you mean engine.tick?)`,
		`config: unknown key "log.levl" in file ` + path + ` (did you mean log.level?)`,
	}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
	if !isKeyError(err, ErrUnknownKey) {
		t.Errorf("err does not wrap a KeyError with ErrUnknownKey")
	}
}

func TestKeysAreCaseInsensitiveInFiles(t *testing.T) {
	path := writeFile(t, t.TempDir(), "config.yaml", "Engine:\n  Tick: 3ms\n")
	c, _ := mustLoad(t, LoadOptions{File: path, Env: testEnv(t)})
	if c.Engine.Tick != 3*time.Millisecond {
		t.Errorf("Tick = %v, want 3ms", c.Engine.Tick)
	}
}

func TestDerivedPaths(t *testing.T) {
	home := t.TempDir()
	cases := []struct {
		name              string
		env               []string
		wantStore, wantSo string
	}{
		{"home fallback", []string{"HOME=" + home},
			home + "/.local/state/wakewheel", home + "/.local/state/wakewheel/wakewheel.sock"},
		{"xdg state", []string{"HOME=" + home, "XDG_STATE_HOME=/st"},
			"/st/wakewheel", "/st/wakewheel/wakewheel.sock"},
		{"xdg runtime", []string{"HOME=" + home, "XDG_STATE_HOME=/st", "XDG_RUNTIME_DIR=/run/user/1000"},
			"/st/wakewheel", "/run/user/1000/wakewheel/wakewheel.sock"},
		{"relative xdg is ignored", []string{"HOME=" + home, "XDG_STATE_HOME=st", "XDG_RUNTIME_DIR=run"},
			home + "/.local/state/wakewheel", home + "/.local/state/wakewheel/wakewheel.sock"},
		{"socket follows a configured store", []string{"HOME=" + home, "WAKEWHEEL_ENGINE_STORE_DIR=~/ww"},
			home + "/ww", home + "/ww/wakewheel.sock"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, eff := mustLoad(t, LoadOptions{Env: testEnv(t, tc.env...)})
			if c.Engine.StoreDir != tc.wantStore || c.Engine.SocketPath != tc.wantSo {
				t.Errorf("store %q socket %q; want %q %q", c.Engine.StoreDir, c.Engine.SocketPath, tc.wantStore, tc.wantSo)
			}
			if en := entry(t, eff, "engine.socket_path"); en.Source != "default" || en.Value != tc.wantSo {
				t.Errorf("Effective socket = %+v", en)
			}
		})
	}
}

func TestNoHomeNoDefaultStore(t *testing.T) {
	env := func(string) (string, bool) { return "", false }
	err, lines := loadError(t, LoadOptions{Env: env})
	want := `config: engine.store_dir = "" (default): has no default: neither XDG_STATE_HOME nor HOME is an absolute path`
	if len(lines) != 1 || lines[0] != want {
		t.Errorf("got %q, want only %q", lines, want)
	}
	if !isKeyError(err, ErrInvalid) {
		t.Errorf("err does not wrap ErrInvalid")
	}
}

// TestProcessEnvironment runs Load with no injected Env: it reads the
// process environment, made hermetic with t.Setenv.
func TestProcessEnvironment(t *testing.T) {
	for _, s := range Registry() {
		t.Setenv(s.Env(), "") // restored after the test...
		os.Unsetenv(s.Env())  // ...but unset during it
	}
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, "cfg"))
	t.Setenv("XDG_STATE_HOME", filepath.Join(home, "state"))
	t.Setenv("XDG_RUNTIME_DIR", "")
	t.Setenv("WAKEWHEEL_DETECT_DRAIN_BUDGET", "7")
	writeFile(t, filepath.Join(home, "cfg", "wakewheel"), "config.yaml", "detect:\n  burst_cap: 6s\n")

	c, eff := mustLoad(t, LoadOptions{})
	if c.Detect.DrainBudget != 7 || c.Detect.BurstCap != 6*time.Second {
		t.Errorf("DrainBudget %d BurstCap %v; want 7 from env and 6s from file", c.Detect.DrainBudget, c.Detect.BurstCap)
	}
	if c.Engine.StoreDir != filepath.Join(home, "state", "wakewheel") {
		t.Errorf("StoreDir = %q", c.Engine.StoreDir)
	}
	if got := entry(t, eff, "detect.drain_budget").Source; got != "env" {
		t.Errorf("drain_budget source %q", got)
	}
}

func TestEditDistance(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want int
	}{{"", "", 0}, {"tick", "tik", 1}, {"kitten", "sitting", 3}, {"abc", "", 3}} {
		if got := editDistance(tc.a, tc.b); got != tc.want {
			t.Errorf("editDistance(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
	}
}
