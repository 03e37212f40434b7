package agenthooks

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Events returns the events a host's hooks are installed for.
func Events(h Host) []string {
	if h == Codex {
		// Codex documents SessionStart, UserPromptSubmit, Stop and
		// PreCompact command hooks; see docs/AGENT-HOSTS.md.
		return []string{EventSessionStart, EventUserPromptSubmit, EventStop, EventPreCompact}
	}
	return []string{EventSessionStart, EventUserPromptSubmit, EventStop, EventPreCompact, EventSessionEnd}
}

// SettingsPath is where a host reads hooks: the user's file, or the
// project's under dir when dir is set.
//
//	claude-code  ~/.claude/settings.json   DIR/.claude/settings.json
//	codex        ~/.codex/hooks.json       DIR/.codex/hooks.json
func SettingsPath(h Host, home, dir string) string {
	base := home
	if dir != "" {
		base = dir
	}
	if h == Codex {
		return filepath.Join(base, ".codex", "hooks.json")
	}
	return filepath.Join(base, ".claude", "settings.json")
}

// Entry is one command hook to install for an event.
type Entry struct {
	Command string
	// Timeout is the host's timeout for the hook, in seconds.
	Timeout int
	// Mine recognises an earlier entry of ours for the same lane (another
	// path to the binary, another timeout), which is replaced.
	Mine func(command string) bool
}

// Snippet is the hooks object for entry on every event of h, as a host's
// settings file holds it.
func Snippet(h Host, e Entry) []byte {
	hooks := map[string]any{}
	for _, ev := range Events(h) {
		hooks[ev] = []any{group(e)}
	}
	b, _ := json.MarshalIndent(map[string]any{"hooks": hooks}, "", "  ")
	return append(b, '\n')
}

func group(e Entry) map[string]any {
	return map[string]any{"hooks": []any{map[string]any{"type": "command", "command": e.Command, "timeout": e.Timeout}}}
}

// Merge adds entry to every event of h in a settings document (JSON; empty
// means {}), keeping everything else in it: other keys, other events,
// other hooks of the same event. An entry already present is left alone
// (Merge is idempotent); an earlier entry of ours (Entry.Mine) is updated
// in place. changed reports whether the document is different.
func Merge(doc []byte, h Host, e Entry) (out []byte, changed bool, err error) {
	root := map[string]any{}
	if len(bytes.TrimSpace(doc)) > 0 {
		if err := json.Unmarshal(doc, &root); err != nil {
			return nil, false, fmt.Errorf("%w: it is not a JSON object (%v); fix it or pass --print and merge by hand", ErrBadSettings, err)
		}
	}
	hooks := map[string]any{}
	if v, ok := root["hooks"]; ok {
		m, isMap := v.(map[string]any)
		if !isMap {
			return nil, false, fmt.Errorf("%w: \"hooks\" is not an object; fix it or pass --print and merge by hand", ErrBadSettings)
		}
		hooks = m
	}
	for _, ev := range Events(h) {
		var groups []any
		if v, ok := hooks[ev]; ok {
			list, isList := v.([]any)
			if !isList {
				return nil, false, fmt.Errorf("%w: \"hooks\".%q is not a list of matcher groups", ErrBadSettings, ev)
			}
			groups = list
		}
		found := false
		for _, g := range groups {
			gm, _ := g.(map[string]any)
			list, _ := gm["hooks"].([]any)
			for _, x := range list {
				hm, _ := x.(map[string]any)
				cmd, _ := hm["command"].(string)
				if hm == nil || hm["type"] != "command" || (cmd != e.Command && (e.Mine == nil || !e.Mine(cmd))) {
					continue
				}
				found = true
				if cmd != e.Command || !sameNumber(hm["timeout"], e.Timeout) {
					hm["command"], hm["timeout"] = e.Command, e.Timeout
					changed = true
				}
			}
		}
		if !found {
			hooks[ev] = append(groups, group(e))
			changed = true
		}
	}
	root["hooks"] = hooks
	out, err = json.MarshalIndent(root, "", "  ")
	if err != nil {
		return nil, false, fmt.Errorf("%w: %v", ErrBadSettings, err)
	}
	return append(out, '\n'), changed, nil
}

func sameNumber(v any, n int) bool {
	f, ok := v.(float64)
	return ok && f == float64(n)
}

// Install merges entry into the settings file at path: a backup of the
// old file goes to path + ".bak-<time>" before it is replaced (atomically,
// keeping its mode). It reports whether the file changed.
func Install(path string, h Host, e Entry, now time.Time) (changed bool, backup string, err error) {
	old, err := os.ReadFile(path)
	if err != nil && !os.IsNotExist(err) {
		return false, "", err
	}
	out, changed, err := Merge(old, h, e)
	if err != nil {
		return false, "", fmt.Errorf("%s: %w", path, err)
	}
	if !changed {
		return false, "", nil
	}
	mode := os.FileMode(0o600)
	if fi, err := os.Stat(path); err == nil {
		mode = fi.Mode().Perm()
		backup = path + ".bak-" + now.UTC().Format("20060102T150405Z")
		if err := os.WriteFile(backup, old, mode); err != nil {
			return false, "", fmt.Errorf("backup of %s: %w", path, err)
		}
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return false, "", err
	}
	tmp := path + ".wakewheel-tmp"
	if err := os.WriteFile(tmp, out, mode); err != nil {
		return false, "", err
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return false, "", err
	}
	return true, backup, nil
}

// HookCommand is the command line a host runs for lane: the wakewheel
// binary at exe, quoted when it needs to be.
func HookCommand(exe string, h Host, lane string, extra ...string) string {
	parts := []string{quote(exe), "hook", string(h), "--lane", lane}
	for _, x := range extra {
		parts = append(parts, quote(x))
	}
	return strings.Join(parts, " ")
}

// IsHookCommand recognises a command line made by HookCommand for lane.
func IsHookCommand(cmd string, h Host, lane string) bool {
	return strings.Contains(cmd, " hook "+string(h)+" --lane "+lane) &&
		(strings.HasSuffix(cmd, " --lane "+lane) || strings.Contains(cmd, " --lane "+lane+" "))
}

func quote(s string) string {
	if s != "" && !strings.ContainsAny(s, " \t\n'\"\\$`;&|<>()*?[]#~") {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
