package configs

import (
	"strings"
	"testing"

	"github.com/spf13/pflag"
)

func TestAddFlagsRegistersEveryKey(t *testing.T) {
	fs := pflag.NewFlagSet("test", pflag.ContinueOnError)
	AddFlags(fs)
	for _, s := range Registry() {
		f := fs.Lookup(s.Key)
		if f == nil {
			t.Errorf("no flag --%s", s.Key)
			continue
		}
		if !strings.Contains(f.Usage, s.Reason) || !strings.Contains(f.Usage, s.Env()) {
			t.Errorf("--%s usage %q lacks the reason or %s", s.Key, f.Usage, s.Env())
		}
		wantDef := s.Default
		if s.Derived() {
			wantDef = ""
			if !strings.Contains(f.Usage, s.Default) {
				t.Errorf("--%s usage does not describe the derived default", s.Key)
			}
		}
		if f.DefValue != wantDef {
			t.Errorf("--%s default %q, want %q", s.Key, f.DefValue, wantDef)
		}
	}
	help := fs.FlagUsages()
	for _, want := range []string{
		`--engine.tick duration`,
		`(default 1ms)`,
		`--detect.drain_budget int`,
		`--engine.store_dir path`,
		`--metrics.allow_remote `, // a bool takes no value name
	} {
		if !strings.Contains(help, want) {
			t.Errorf("help lacks %q:\n%s", want, help)
		}
	}
}

func TestBareBoolFlag(t *testing.T) {
	c, eff := mustLoad(t, LoadOptions{Env: testEnv(t), Flags: flagsWith(t, "--metrics.allow_remote", "--metrics.listen=0.0.0.0:9090")})
	if !c.Metrics.AllowRemote || c.Metrics.Listen != "0.0.0.0:9090" {
		t.Errorf("Metrics = %+v", c.Metrics)
	}
	if en := entry(t, eff, "metrics.allow_remote"); en.Source != "flag" || en.Origin() != "flag --metrics.allow_remote" {
		t.Errorf("Effective = %+v (origin %s)", en, en.Origin())
	}
}

// TestForeignFlagSet: Load reads any flag named after a key, typed or not,
// so cmd may declare its own.
func TestForeignFlagSet(t *testing.T) {
	fs := pflag.NewFlagSet("test", pflag.ContinueOnError)
	fs.Duration("detect.burst_cap", 0, "")
	fs.Int("unrelated", 0, "")
	if err := fs.Parse([]string{"--detect.burst_cap=7s", "--unrelated=3"}); err != nil {
		t.Fatal(err)
	}
	c, _ := mustLoad(t, LoadOptions{Env: testEnv(t), Flags: fs})
	if c.Detect.BurstCap.String() != "7s" {
		t.Errorf("BurstCap = %v, want 7s", c.Detect.BurstCap)
	}
}
