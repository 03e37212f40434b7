package configs

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestSectionsRootsAndLanes(t *testing.T) {
	env := testEnv(t)
	home, _ := env("HOME")
	path := filepath.Join(t.TempDir(), "config.yaml")
	os.WriteFile(path, []byte(`
roots:
  - path: ~/src/app
    armed: true
    ingest: ./index.sh
    skip: [vendor, build]
  - path: /srv/docs
    reconcile_quiet: 2m
    drain_budget: 8
lanes:
  reviewer:
    wake_hook: notify-send reviewer
    roots: [~/src/app]
`), 0o600)
	c, _, err := Load(LoadOptions{File: path, Env: env})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Roots) != 2 || c.Roots[0].Path != filepath.Join(home, "src/app") || !c.Roots[0].Armed ||
		c.Roots[0].Ingest != "./index.sh" || strings.Join(c.Roots[0].Skip, ",") != "vendor,build" ||
		c.Roots[1].Path != "/srv/docs" || c.Roots[1].Armed || c.Roots[1].ReconcileQuiet != 2*time.Minute ||
		c.Roots[1].DrainBudget != 8 || c.Roots[0].ReconcileQuiet != 0 {
		t.Fatalf("roots: %+v", c.Roots)
	}
	if c.Lanes["reviewer"].WakeHook != "notify-send reviewer" || len(c.Lanes["reviewer"].Roots) != 1 ||
		c.Lanes["reviewer"].Roots[0] != filepath.Join(home, "src/app") {
		t.Fatalf("lanes: %+v", c.Lanes)
	}
}

func TestSectionsBadValues(t *testing.T) {
	for _, tc := range []struct{ file, want string }{
		{"roots: yes\n", "roots"},
		{"roots:\n  - path: relative/dir\n", "must be absolute"},
		{"roots:\n  - ingest: x\n", "path is required"},
		{"roots:\n  - path: /a\n    armd: true\n", `unknown field "armd"`},
		{"roots:\n  - path: /a\n  - path: /a\n", "declared twice"},
		{"roots:\n  - path: /a\n    burst_silence: 2h\n", `burst_silence = "2h": must be between 10ms and 60s`},
		{"roots:\n  - path: /a\n    drain_budget: lots\n", `drain_budget = "lots": not an integer`},
		{"roots:\n  - path: /a\n    burst_silence: 3s\n    burst_cap: 1s\n", "burst_cap must be at least burst_silence"},
		{"lanes:\n  bad lane:\n    wake_hook: x\n", "a lane name is"},
		{"lanes:\n  a:\n    hook: x\n", "a lane has only wake_hook, roots, agent"},
		{"lanes:\n  a:\n    roots: [relative]\n", "must be absolute"},
		{"lanes:\n  a:\n    agent_input: yaml\n", `must be "text"`},
		{"lanes:\n  a:\n    agent_timeout: 1s\n", "between 10s and 24h"},
		{"lanes:\n  a:\n    tmux: two words\n", "one tmux target"},
		{"lanes:\n  a:\n    prompt: \"a\\nb\"\n", "must be one line"},
	} {
		path := filepath.Join(t.TempDir(), "config.yaml")
		os.WriteFile(path, []byte(tc.file), 0o600)
		_, _, err := Load(LoadOptions{File: path, Env: testEnv(t)})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: error %v, want one containing %q", tc.file, err, tc.want)
		}
		if err != nil && !errors.Is(err, ErrInvalid) && !errors.Is(err, ErrUnknownKey) {
			t.Errorf("%q: %v is neither ErrInvalid nor ErrUnknownKey", tc.file, err)
		}
	}
}

func TestLaneAgentFields(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config.yaml")
	os.WriteFile(path, []byte(`lanes:
  rev:
    agent: ./run-agent --resume "$WAKEWHEEL_SESSION_ID"
    agent_timeout: 20m
    agent_input: json
    tmux: work:rev.0
    prompt: "work on {lane}"
`), 0o600)
	c, _, err := Load(LoadOptions{File: path, Env: testEnv(t)})
	if err != nil {
		t.Fatal(err)
	}
	got := c.Lanes["rev"].LaneAgent
	want := LaneAgent{Agent: `./run-agent --resume "$WAKEWHEEL_SESSION_ID"`, AgentTimeout: 20 * time.Minute, AgentInput: "json", Tmux: "work:rev.0", Prompt: "work on {lane}"}
	if got != want {
		t.Fatalf("lane agent %+v, want %+v", got, want)
	}
	if c.Agents.Idle != 9*time.Minute || c.Agents.Prompt == "" {
		t.Fatalf("agents defaults: %+v", c.Agents)
	}
}
