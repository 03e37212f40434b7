package configs

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// TestBadValues checks the exact message for each kind of bad value, from
// each layer.
func TestBadValues(t *testing.T) {
	long := "/" + strings.Repeat("d", 120)
	cases := []struct {
		name string
		opts func(t *testing.T) LoadOptions
		want string
	}{
		{"duration out of range", envOpts("WAKEWHEEL_ENGINE_TICK=5s"),
			`config: engine.tick = "5s" (from env WAKEWHEEL_ENGINE_TICK): must be between 100µs and 1s`},
		{"duration below range", envOpts("WAKEWHEEL_ENGINE_TICK=10us"),
			`config: engine.tick = "10us" (from env WAKEWHEEL_ENGINE_TICK): must be between 100µs and 1s`},
		{"not a duration", envOpts("WAKEWHEEL_DETECT_BURST_SILENCE=soon"),
			`config: detect.burst_silence = "soon" (from env WAKEWHEEL_DETECT_BURST_SILENCE): not a duration (write it with a unit: 500ms, 5s, 10m, 1h)`},
		{"bare number is not a duration", fileOpts("detect:\n  burst_silence: 500\n"),
			`config: detect.burst_silence = "500" (from file {file}): not a duration (write it with a unit: 500ms, 5s, 10m, 1h)`},
		{"table where a value belongs", fileOpts("engine:\n  tick:\n    ms: 1\n"),
			`config: engine.tick = "map[ms:1]" (from file {file}): not a duration (found a table or a list)`},
		{"int out of range", flagOpts("--detect.drain_budget=0"),
			`config: detect.drain_budget = "0" (from flag --detect.drain_budget): must be between 1 and 10000`},
		{"not an int", flagOpts("--detect.drain_budget=lots"),
			`config: detect.drain_budget = "lots" (from flag --detect.drain_budget): not an integer`},
		{"float is not an int", fileOpts("detect:\n  watch_budget: 1.5\n"),
			`config: detect.watch_budget = "1.5" (from file {file}): not an integer`},
		{"enum", envOpts("WAKEWHEEL_LOG_LEVEL=loud"),
			`config: log.level = "loud" (from env WAKEWHEEL_LOG_LEVEL): must be one of trace, debug, info, warn, error`},
		{"enum is case-sensitive", fileOpts("log:\n  format: JSON\n"),
			`config: log.format = "JSON" (from file {file}): must be one of auto, console, json`},
		{"not a bool", envOpts("WAKEWHEEL_METRICS_ALLOW_REMOTE=maybe"),
			`config: metrics.allow_remote = "maybe" (from env WAKEWHEEL_METRICS_ALLOW_REMOTE): not a boolean (true or false)`},
		{"relative path", envOpts("WAKEWHEEL_ENGINE_STORE_DIR=var/ww"),
			`config: engine.store_dir = "var/ww" (from env WAKEWHEEL_ENGINE_STORE_DIR): must be an absolute path`},
		{"empty path", envOpts("WAKEWHEEL_ENGINE_SOCKET_PATH="),
			`config: engine.socket_path = "" (from env WAKEWHEEL_ENGINE_SOCKET_PATH): must be an absolute path`},
		{"socket path too long", envOpts("WAKEWHEEL_ENGINE_SOCKET_PATH=" + long),
			`config: engine.socket_path = "` + long + `" (from env WAKEWHEEL_ENGINE_SOCKET_PATH): is 121 bytes; a unix socket path must be under 108 bytes (set a shorter engine.socket_path, or XDG_RUNTIME_DIR)`},
		{"derived socket path too long", envOpts("XDG_RUNTIME_DIR=" + long),
			`config: engine.socket_path = "` + long + `/wakewheel/wakewheel.sock" (default): is 146 bytes; a unix socket path must be under 108 bytes (set a shorter engine.socket_path, or XDG_RUNTIME_DIR)`},
		{"metrics on all interfaces", envOpts("WAKEWHEEL_METRICS_LISTEN=:9090"),
			`config: metrics.listen = ":9090" (from env WAKEWHEEL_METRICS_LISTEN): must be a loopback host:port (localhost, 127.0.0.1, [::1]) unless metrics.allow_remote is true`},
		{"metrics not host:port", envOpts("WAKEWHEEL_METRICS_LISTEN=localhost"),
			`config: metrics.listen = "localhost" (from env WAKEWHEEL_METRICS_LISTEN): not a host:port`},
		{"metrics bad port", envOpts("WAKEWHEEL_METRICS_LISTEN=127.0.0.1:http"),
			`config: metrics.listen = "127.0.0.1:http" (from env WAKEWHEEL_METRICS_LISTEN): port must be a number between 1 and 65535`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			opts := tc.opts(t)
			err, lines := loadError(t, opts)
			want := strings.ReplaceAll(tc.want, "{file}", opts.File)
			if len(lines) != 1 || lines[0] != want {
				t.Errorf("got  %q\nwant %q", lines, want)
			}
			if !isKeyError(err, ErrInvalid) {
				t.Errorf("err does not wrap a KeyError with ErrInvalid")
			}
		})
	}
}

func envOpts(pairs ...string) func(t *testing.T) LoadOptions {
	return func(t *testing.T) LoadOptions { return LoadOptions{Env: testEnv(t, pairs...)} }
}

func flagOpts(args ...string) func(t *testing.T) LoadOptions {
	return func(t *testing.T) LoadOptions { return LoadOptions{Env: testEnv(t), Flags: flagsWith(t, args...)} }
}

func fileOpts(content string) func(t *testing.T) LoadOptions {
	return func(t *testing.T) LoadOptions {
		return LoadOptions{Env: testEnv(t), File: writeFile(t, t.TempDir(), "config.yaml", content)}
	}
}

func TestGoodEdgeValues(t *testing.T) {
	for _, pairs := range [][]string{
		{"WAKEWHEEL_ENGINE_TICK=100us"},
		{"WAKEWHEEL_ENGINE_TICK=1s"},
		{"WAKEWHEEL_METRICS_LISTEN=127.0.0.1:9090"},
		{"WAKEWHEEL_METRICS_LISTEN=[::1]:9090"},
		{"WAKEWHEEL_METRICS_LISTEN=localhost:9090"},
		{"WAKEWHEEL_METRICS_LISTEN=0.0.0.0:9090", "WAKEWHEEL_METRICS_ALLOW_REMOTE=true"},
		{"WAKEWHEEL_DETECT_BURST_CAP=500ms"}, // equal to burst_silence is allowed
		{"WAKEWHEEL_OBLIGATIONS_HUMAN_CADENCE=15m"},
		{"WAKEWHEEL_ENGINE_SOCKET_PATH=/" + strings.Repeat("d", 106)}, // 107 bytes
	} {
		if _, _, err := Load(LoadOptions{Env: testEnv(t, pairs...)}); err != nil {
			t.Errorf("%v: %v", pairs, err)
		}
	}
}

// engine.timer_slack's default is one engine.tick, whatever the tick; 0
// and any slack up to the tick are accepted.
func TestTimerSlackFollowsTheTick(t *testing.T) {
	for _, c := range []struct {
		pairs []string
		want  time.Duration
	}{
		{nil, time.Millisecond},
		{[]string{"WAKEWHEEL_ENGINE_TICK=100us"}, 100 * time.Microsecond},
		{[]string{"WAKEWHEEL_ENGINE_TICK=5ms"}, 5 * time.Millisecond},
		{[]string{"WAKEWHEEL_ENGINE_TIMER_SLACK=0s"}, 0},
		{[]string{"WAKEWHEEL_ENGINE_TICK=5ms", "WAKEWHEEL_ENGINE_TIMER_SLACK=250us"}, 250 * time.Microsecond},
	} {
		cfg, _, err := Load(LoadOptions{Env: testEnv(t, c.pairs...)})
		if err != nil || cfg.Engine.TimerSlack != c.want {
			t.Errorf("%v: slack %v, err %v; want %v", c.pairs, cfg.Engine.TimerSlack, err, c.want)
		}
	}
}

func TestCrossFieldRules(t *testing.T) {
	cases := []struct {
		pairs []string
		want  string
	}{
		{[]string{"WAKEWHEEL_DETECT_BURST_CAP=400ms"},
			`config: detect.burst_cap = "400ms" (from env WAKEWHEEL_DETECT_BURST_CAP): must be >= detect.burst_silence (500ms)`},
		{[]string{"WAKEWHEEL_DETECT_BURST_SILENCE=6s"},
			`config: detect.burst_cap = "5s" (default): must be >= detect.burst_silence (6s)`},
		{[]string{"WAKEWHEEL_DETECT_RECONCILE_QUIET=20m"},
			`config: detect.reconcile_cap = "10m" (default): must be >= detect.reconcile_quiet (20m)`},
		{[]string{"WAKEWHEEL_ENGINE_TIMER_SLACK=2ms"},
			`config: engine.timer_slack = "2ms" (from env WAKEWHEEL_ENGINE_TIMER_SLACK): must be <= engine.tick (1ms)`},
		{[]string{"WAKEWHEEL_ENGINE_TICK=5ms", "WAKEWHEEL_ENGINE_TIMER_SLACK=6ms"},
			`config: engine.timer_slack = "6ms" (from env WAKEWHEEL_ENGINE_TIMER_SLACK): must be <= engine.tick (5ms)`},
		{[]string{"WAKEWHEEL_ENGINE_TIMER_SLACK=-1ms"},
			`config: engine.timer_slack = "-1ms" (from env WAKEWHEEL_ENGINE_TIMER_SLACK): must be between 0s and 1s`},
		{[]string{"WAKEWHEEL_ENGINE_RETRY_BASE=10m"},
			`config: engine.retry_cap = "5m" (default): must be >= engine.retry_base (10m)`},
		{[]string{"WAKEWHEEL_OBLIGATIONS_HUMAN_CADENCE=20m"},
			`config: obligations.human.cadence = "20m" (from env WAKEWHEEL_OBLIGATIONS_HUMAN_CADENCE): must be <= obligations.human.slo (15m)`},
		{[]string{"WAKEWHEEL_OBLIGATIONS_PEER_SLO=5m"},
			`config: obligations.peer.cadence = "10m" (default): must be <= obligations.peer.slo (5m)`},
		{[]string{"WAKEWHEEL_OBLIGATIONS_DIGEST_CADENCE=3h"},
			`config: obligations.digest.cadence = "3h" (from env WAKEWHEEL_OBLIGATIONS_DIGEST_CADENCE): must be <= obligations.digest.slo (2h)`},
		{[]string{"WAKEWHEEL_OBLIGATIONS_ALERT_SLO=10m"},
			`config: obligations.alert.cadence = "15m" (default): must be <= obligations.alert.slo (10m)`},
	}
	for _, tc := range cases {
		_, lines := loadError(t, LoadOptions{Env: testEnv(t, tc.pairs...)})
		if len(lines) != 1 || lines[0] != tc.want {
			t.Errorf("%v:\ngot  %q\nwant %q", tc.pairs, lines, tc.want)
		}
	}
}

// TestRejectedKeyIsReportedOnce: a value that does not parse is reported,
// and the rules that read it are not run on a made-up value.
func TestRejectedKeyIsReportedOnce(t *testing.T) {
	_, lines := loadError(t, LoadOptions{Env: testEnv(t, "WAKEWHEEL_DETECT_BURST_SILENCE=soon", "WAKEWHEEL_DETECT_BURST_CAP=1ms")})
	want := []string{
		`config: detect.burst_cap = "1ms" (from env WAKEWHEEL_DETECT_BURST_CAP): must be between 100ms and 10m`,
		`config: detect.burst_silence = "soon" (from env WAKEWHEEL_DETECT_BURST_SILENCE): not a duration (write it with a unit: 500ms, 5s, 10m, 1h)`,
	}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
}

// TestAllErrorsSortedByKey: every problem is reported at once, by key,
// whatever layer it came from.
func TestAllErrorsSortedByKey(t *testing.T) {
	path := writeFile(t, t.TempDir(), "config.yaml", "obligations:\n  max_body: 1\nengine:\n  typo: 1\n")
	_, lines := loadError(t, LoadOptions{
		File:  path,
		Env:   testEnv(t, "WAKEWHEEL_LOG_LEVEL=loud", "WAKEWHEEL_ENGINE_TICK=0s"),
		Flags: flagsWith(t, "--detect.watch_budget=-1"),
	})
	var keys []string
	for _, l := range lines {
		key, _, _ := strings.Cut(strings.TrimPrefix(strings.TrimPrefix(l, "config: unknown key "), "config: "), " ")
		keys = append(keys, strings.Trim(key, `"`))
	}
	want := []string{"detect.watch_budget", "engine.tick", "engine.typo", "log.level", "obligations.max_body"}
	if strings.Join(keys, ",") != strings.Join(want, ",") {
		t.Errorf("keys in order %v, want %v; errors:\n%s", keys, want, strings.Join(lines, "\n"))
	}
}

func TestValidateHandBuiltConfig(t *testing.T) {
	c, _ := mustLoad(t, LoadOptions{Env: testEnv(t)})
	c.Engine.Tick = 5 * time.Second
	c.Detect.BurstCap = time.Second
	c.Detect.BurstSilence = 2 * time.Second
	err := c.Validate()
	want := `config: detect.burst_cap = "1s": must be >= detect.burst_silence (2s)` + "\n" +
		`config: engine.tick = "5s": must be between 100µs and 1s`
	if err == nil || err.Error() != want {
		t.Errorf("Validate() = %v\nwant %s", err, want)
	}
	if !errors.Is(err, ErrInvalid) {
		t.Errorf("Validate error does not wrap ErrInvalid")
	}
	if err := (Config{}).Validate(); err == nil {
		t.Error("the zero Config validated; it has no tick, no paths")
	}
}

func TestAllowed(t *testing.T) {
	for key, want := range map[string]string{
		"engine.tick":               "100µs..1s",
		"detect.burst_cap":          "100ms..10m; >= detect.burst_silence",
		"obligations.human.cadence": "10s..24h; <= obligations.human.slo",
		"log.level":                 "trace, debug, info, warn, error",
		"engine.socket_path":        "absolute path; under 108 bytes",
		"metrics.allow_remote":      "true, false",
		"metrics.listen":            "empty, or host:port on loopback unless metrics.allow_remote",
	} {
		s, _ := lookupSetting(key)
		if got := s.Allowed(); got != want {
			t.Errorf("%s: Allowed() = %q, want %q", key, got, want)
		}
	}
}
