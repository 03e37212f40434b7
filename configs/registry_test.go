package configs

import (
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

var keyPattern = regexp.MustCompile(`^[a-z]+(\.[a-z_]+)+$`)

// TestRegistryIsConsistent checks the table itself: names, kinds, bounds
// and defaults, and that it fills every field of Config exactly once.
func TestRegistryIsConsistent(t *testing.T) {
	seen := map[string]bool{}
	fields := map[any]string{}
	for _, s := range Registry() {
		if !keyPattern.MatchString(s.Key) {
			t.Errorf("%s: key is not lower-case dotted words", s.Key)
		}
		if seen[s.Key] {
			t.Errorf("%s: registered twice", s.Key)
		}
		seen[s.Key] = true
		if s.Reason == "" || strings.ContainsAny(s.Reason, "`|\n") {
			t.Errorf("%s: reason must be one plain line", s.Key)
		}
		if s.Means() == "" || strings.ContainsAny(s.Means(), "`|\n") {
			t.Errorf("%s: say what the setting means in one plain line (configs/meanings.go)", s.Key)
		}
		var c Config
		ptr := s.field(&c)
		if other, dup := fields[ptr]; dup {
			t.Errorf("%s and %s fill the same field", s.Key, other)
		}
		fields[ptr] = s.Key
		want := map[Kind]string{KindDuration: "*time.Duration", KindInt: "*int", KindBool: "*bool", KindString: "*string", KindPath: "*string"}[s.Kind]
		if got := reflect.TypeOf(ptr).String(); got != want {
			t.Errorf("%s: kind %s fills a %s field", s.Key, s.Kind, got)
		}
		if s.Min != "" || s.Max != "" {
			lo, hi, _ := s.bounds() // panics on a bad bound
			if lo > hi {
				t.Errorf("%s: min %s > max %s", s.Key, s.Min, s.Max)
			}
		}
		if (s.Kind == KindDuration || s.Kind == KindInt) && (s.Min == "" || s.Max == "") {
			t.Errorf("%s: a %s needs both bounds", s.Key, s.Kind)
		}
		if s.Derived() {
			continue
		}
		if err := s.parse(&c, s.Default, testEnv(t)); err != nil {
			t.Errorf("%s: default %q: %v", s.Key, s.Default, err)
		}
		if s.Kind != KindPath {
			if p := s.problem(&c); p != "" {
				t.Errorf("%s: default %q: %s", s.Key, s.Default, p)
			}
		}
		if got := s.format(&c); got != s.Default {
			t.Errorf("%s: default %q is not canonical; write %q", s.Key, s.Default, got)
		}
	}
	// Roots and Lanes are the file's table sections (sections.go), not
	// registered values.
	if n := countLeaves(reflect.TypeOf(Config{})) - 2; n != len(fields) {
		t.Errorf("Config has %d registered fields, the registry fills %d", n, len(fields))
	}
	for _, r := range rules {
		for _, k := range append([]string{r.key}, r.deps...) {
			if !seen[k] {
				t.Errorf("rule on %s names unregistered key %s", r.key, k)
			}
		}
	}
}

func countLeaves(t reflect.Type) int {
	if t.Kind() != reflect.Struct {
		return 1
	}
	n := 0
	for i := range t.NumField() {
		n += countLeaves(t.Field(i).Type)
	}
	return n
}

func TestEnvNames(t *testing.T) {
	for key, want := range map[string]string{
		"engine.tick":               "WAKEWHEEL_ENGINE_TICK",
		"detect.burst_silence":      "WAKEWHEEL_DETECT_BURST_SILENCE",
		"obligations.human.cadence": "WAKEWHEEL_OBLIGATIONS_HUMAN_CADENCE",
	} {
		s, ok := lookupSetting(key)
		if !ok {
			t.Fatalf("%s is not registered", key)
		}
		if got := s.Env(); got != want {
			t.Errorf("%s: Env() = %s, want %s", key, got, want)
		}
	}
}

// TestRegisteredNumbers pins the defaults the design documents register.
func TestRegisteredNumbers(t *testing.T) {
	c, _ := mustLoad(t, LoadOptions{Env: testEnv(t)})
	want := Detect{
		BurstSilence:   500 * time.Millisecond,
		BurstCap:       5 * time.Second,
		ReconcileQuiet: 45 * time.Second,
		ReconcileCap:   10 * time.Minute,
		DrainBudget:    32,
		DrainTarget:    time.Second,
		DrainMaxBatch:  4096,
		IndexLockWait:  10 * time.Second,
		IndexLockMax:   2 * time.Minute,
		WatchBudget:    8192,
	}
	if c.Detect != want {
		t.Errorf("Detect = %+v, want %+v", c.Detect, want)
	}
	if c.Engine.Tick != time.Millisecond || c.Engine.FlushInterval != 100*time.Millisecond {
		t.Errorf("Engine tick/flush = %v/%v, want 1ms/100ms", c.Engine.Tick, c.Engine.FlushInterval)
	}
	classes := Obligations{
		Human:    Class{5 * time.Minute, 15 * time.Minute},
		Peer:     Class{10 * time.Minute, 30 * time.Minute},
		Digest:   Class{30 * time.Minute, 2 * time.Hour},
		Alert:    Class{15 * time.Minute, time.Hour},
		MaxBody:  64 << 10,
		MaxLanes: 1000,

		Retention:    7 * 24 * time.Hour,
		DedupHorizon: 30 * 24 * time.Hour,
	}
	if c.Obligations != classes {
		t.Errorf("Obligations = %+v, want %+v", c.Obligations, classes)
	}
}

func TestDefaultsAreValid(t *testing.T) {
	c, eff := mustLoad(t, LoadOptions{Env: testEnv(t)})
	if err := c.Validate(); err != nil {
		t.Fatalf("defaults do not validate: %v", err)
	}
	for _, en := range eff.Entries() {
		if en.Source != "default" {
			t.Errorf("%s: source %q, want default", en.Key, en.Source)
		}
	}
	keys := func(ens []Entry) []string {
		var ks []string
		for _, en := range ens {
			ks = append(ks, en.Key)
		}
		return ks
	}
	var want []string
	for _, s := range Registry() {
		want = append(want, s.Key)
	}
	if got := keys(eff.Entries()); !slices.Equal(got, want) {
		t.Errorf("Effective keys = %v, want the registry's %v", got, want)
	}
}

func TestFormatDuration(t *testing.T) {
	for d, want := range map[time.Duration]string{
		100 * time.Microsecond:        "100µs",
		5 * time.Minute:               "5m",
		time.Hour:                     "1h",
		90 * time.Minute:              "1h30m",
		time.Hour + time.Second:       "1h0m1s",
		0:                             "0s",
		1500 * time.Millisecond:       "1.5s",
		2*time.Minute + 3*time.Second: "2m3s",
	} {
		if got := formatDuration(d); got != want {
			t.Errorf("formatDuration(%v) = %q, want %q", d, got, want)
		}
	}
}

func TestRegistryIsACopy(t *testing.T) {
	r := Registry()
	for i := range r {
		if len(r[i].Enum) > 0 {
			r[i].Enum[0] = "changed"
		}
		r[i].Default = "changed"
	}
	if _, _, err := Load(LoadOptions{Env: testEnv(t)}); err != nil {
		t.Fatalf("changing Registry()'s result changed the registry: %v", err)
	}
}

// A path key whose default is empty names an optional file: empty passes,
// a relative path is refused, ~/ is the home directory.
func TestOptionalPathKeys(t *testing.T) {
	s, ok := lookupSetting("fleet.creds")
	if !ok || s.Kind != KindPath || !s.optional() {
		t.Fatalf("fleet.creds: %+v", s)
	}
	env := testEnv(t, "HOME=/home/u")
	for raw, want := range map[string]string{
		"":               "",
		"/etc/f.creds":   "",
		"~/f.creds":      "",
		"keys/f.creds":   "must be empty or an absolute path",
		"./keys/f.creds": "must be empty or an absolute path",
	} {
		var c Config
		if err := s.parse(&c, raw, env); err != nil {
			t.Fatal(err)
		}
		if got := s.problem(&c); got != want {
			t.Errorf("fleet.creds = %q: problem %q, want %q", raw, got, want)
		}
		if raw == "~/f.creds" && c.Fleet.Creds != "/home/u/f.creds" {
			t.Errorf("~/f.creds became %q", c.Fleet.Creds)
		}
	}
	if s, _ := lookupSetting("engine.store_dir"); s.optional() {
		t.Error("engine.store_dir is not optional")
	}
}
