package agenthooks

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func entryFor(cmd string) Entry {
	return Entry{Command: cmd, Timeout: 600, Mine: func(c string) bool { return IsHookCommand(c, ClaudeCode, "rev") }}
}

func TestMergeKeepsTheUsersHooksAndIsIdempotent(t *testing.T) {
	user := `{"model": "opus", "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "notify-send done"}]}],
	  "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "guard"}]}]}}`
	e := entryFor(HookCommand("/usr/bin/wakewheel", ClaudeCode, "rev"))
	out, changed, err := Merge([]byte(user), ClaudeCode, e)
	if err != nil || !changed {
		t.Fatalf("merge: changed %v, %v", changed, err)
	}
	var doc struct {
		Model string
		Hooks map[string][]struct {
			Matcher string
			Hooks   []struct {
				Type, Command string
				Timeout       int
			}
		}
	}
	if err := json.Unmarshal(out, &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Model != "opus" || len(doc.Hooks["PreToolUse"]) != 1 || doc.Hooks["PreToolUse"][0].Hooks[0].Command != "guard" {
		t.Fatalf("the user's settings were not kept:\n%s", out)
	}
	stop := doc.Hooks["Stop"]
	if len(stop) != 2 || stop[0].Hooks[0].Command != "notify-send done" || stop[1].Hooks[0].Command != e.Command || stop[1].Hooks[0].Timeout != 600 {
		t.Fatalf("Stop hooks:\n%s", out)
	}
	for _, ev := range Events(ClaudeCode) {
		if len(doc.Hooks[ev]) == 0 {
			t.Errorf("no %s hook", ev)
		}
	}
	again, changed, err := Merge(out, ClaudeCode, e)
	if err != nil || changed || string(again) != string(out) {
		t.Fatalf("second merge changed the file (%v, %v)", changed, err)
	}
	// A new binary path replaces our entry instead of adding a second one.
	moved := entryFor(HookCommand("/opt/ww/bin/wakewheel", ClaudeCode, "rev"))
	third, changed, err := Merge(out, ClaudeCode, moved)
	if err != nil || !changed || strings.Count(string(third), "hook claude-code --lane rev") != len(Events(ClaudeCode)) ||
		strings.Contains(string(third), "/usr/bin/wakewheel") {
		t.Fatalf("moved binary: changed %v, %v:\n%s", changed, err, third)
	}
}

func TestMergeRefusesWhatItCannotMerge(t *testing.T) {
	for _, doc := range []string{`[1,2]`, `{"hooks": []}`, `{"hooks": {"Stop": {}}}`, `{not json`} {
		if _, _, err := Merge([]byte(doc), ClaudeCode, entryFor("x")); err == nil || !strings.Contains(err.Error(), "merge by hand") && !strings.Contains(err.Error(), "matcher groups") {
			t.Errorf("%s: %v", doc, err)
		}
	}
}

func TestInstallWritesABackup(t *testing.T) {
	dir := t.TempDir()
	path := SettingsPath(ClaudeCode, "/nonexistent", dir)
	if path != filepath.Join(dir, ".claude", "settings.json") {
		t.Fatalf("project path %s", path)
	}
	os.MkdirAll(filepath.Dir(path), 0o700)
	os.WriteFile(path, []byte(`{"theme": "dark"}`), 0o640)
	now := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	changed, backup, err := Install(path, ClaudeCode, entryFor("ww hook claude-code --lane rev"), now)
	if err != nil || !changed || backup == "" {
		t.Fatalf("install: %v %q %v", changed, backup, err)
	}
	if b, _ := os.ReadFile(backup); string(b) != `{"theme": "dark"}` {
		t.Fatalf("backup holds %q", b)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o640 {
		t.Fatalf("mode %v, want the file's own 0640", fi.Mode().Perm())
	}
	changed, _, err = Install(path, ClaudeCode, entryFor("ww hook claude-code --lane rev"), now)
	if err != nil || changed {
		t.Fatalf("second install changed the file: %v", err)
	}
	if p := SettingsPath(Codex, "/home/u", ""); p != "/home/u/.codex/hooks.json" {
		t.Fatalf("codex user path %s", p)
	}
}
