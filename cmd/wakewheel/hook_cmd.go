package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"
	"time"

	"github.com/spf13/cobra"
	"github.com/wakewheel/wakewheel/agenthooks"
	"github.com/wakewheel/wakewheel/api"
	"github.com/wakewheel/wakewheel/configs"
	"github.com/wakewheel/wakewheel/internal/clock"
)

// hookCmd is `wakewheel hook HOST --lane L`, the command a coding agent's
// host runs at its lifecycle events, and `wakewheel hook install`.
func (a *app) hookCmd() *cobra.Command {
	var lane, who string
	var idle time.Duration
	cmd := &cobra.Command{
		Use:   "hook (claude-code|codex) --lane L [--idle D]",
		Short: "Run as a coding agent's command hook: wake it with its lane's work, never by polling",
		Long: `The host (Claude Code, Codex) runs this at its lifecycle events with the event's
JSON on stdin; it answers on stdout as the host's hook protocol says:

  Stop              unconsumed work: block with the digest as the agent's next
                    instruction; else wait (through the daemon's long poll, up
                    to --idle) for a wake and block then, or let the agent rest.
                    A wake is never blocked twice in one stop chain.
  SessionStart      the digest since CONSUMED (since the last park) as context.
  UserPromptSubmit  unconsumed human messages as context.
  PreCompact        park: checkpoint the CONSUMED cursor before the compaction.
  SessionEnd        park when the reason is clear; the session is recorded as
                    ended, so the lane's runner or pane may take over.

Whatever fails (no daemon, unknown lane, bad input) the hook exits 0 with no
output and says why on stderr: an agent is never held by wakewheel.
Install it with: wakewheel hook install claude-code --lane L`,
		Args:      cobra.ExactArgs(1),
		ValidArgs: []string{string(agenthooks.ClaudeCode), string(agenthooks.Codex)},
		RunE: func(cmd *cobra.Command, args []string) error {
			note := a.runHook(cmd, args[0], lane, who, idle, cmd.InOrStdin(), cmd.OutOrStdout())
			if note != "" {
				fmt.Fprintln(cmd.ErrOrStderr(), note)
			}
			return nil // fail-open: the host sees exit 0 whatever happened
		},
	}
	requiredString(cmd, &lane, "lane", "the lane this agent serves")
	f := cmd.Flags()
	f.StringVar(&who, "who", "", "consumer name shown in digests (default: the host)")
	f.DurationVar(&idle, "idle", 0, "how long a Stop hook waits for a wake before the agent rests (default agents.idle)")
	cmd.AddCommand(a.hookInstallCmd())
	return cmd
}

// runHook handles one event and returns the note for stderr.
func (a *app) runHook(cmd *cobra.Command, hostName, lane, who string, idle time.Duration, in io.Reader, out io.Writer) string {
	host, err := agenthooks.ParseHost(hostName)
	if err != nil {
		return "wakewheel hook: " + err.Error() + "; the agent is not held"
	}
	ev, err := agenthooks.Decode(in)
	if err != nil {
		return "wakewheel hook: " + err.Error() + "; the agent is not held"
	}
	// A config with a problem elsewhere must not cost the agent its wake:
	// the socket's path and the registered idle window are enough.
	cfg, _, cfgErr := a.config(cmd)
	if idle <= 0 {
		idle = registeredIdle()
		if cfgErr == nil {
			idle = cfg.Agents.Idle
		}
	}
	socket, _, err := a.socketPath(cmd)
	if err != nil {
		return "wakewheel hook: no socket to reach the daemon (" + err.Error() + "); the agent is not held"
	}
	// A daemon that is loading its deadlines (a restart) is waited for
	// briefly, never longer than hookLoadingWait: then the agent goes on.
	c := api.NewClient(socket).WithLoadingWait(hookLoadingWait)
	res := agenthooks.Run(cmd.Context(), c, agenthooks.Options{Host: host, Lane: lane, Who: who, Idle: idle, Clock: clock.Real{}}, ev)
	if !res.Output.Empty() {
		if err := json.NewEncoder(out).Encode(res.Output); err != nil {
			return "wakewheel hook: could not answer the host: " + err.Error()
		}
	}
	return res.Note
}

// registeredIdle is agents.idle's registered default.
func registeredIdle() time.Duration {
	for _, st := range configs.Registry() {
		if st.Key == "agents.idle" {
			if d, err := time.ParseDuration(st.Default); err == nil {
				return d
			}
		}
	}
	return 9 * time.Minute
}

func (a *app) hookInstallCmd() *cobra.Command {
	var lane, project string
	var idle time.Duration
	var print bool
	cmd := a.localVerb(&cobra.Command{
		Use:   "install (claude-code|codex) --lane L [--project DIR] [--print]",
		Short: "Merge wakewheel's hook entries into the host's settings file (idempotent, with a backup)",
		Long: `Adds "wakewheel hook HOST --lane L" for every event it handles to the host's
settings: ~/.claude/settings.json or DIR/.claude/settings.json for Claude Code,
~/.codex/hooks.json or DIR/.codex/hooks.json for Codex. Everything else in the
file is kept (other keys, other hooks); an earlier wakewheel entry for the lane
is updated; the old file is backed up beside it. The hook's timeout is --idle
plus a minute. --print shows the snippet and changes nothing.`,
		Args:      cobra.ExactArgs(1),
		ValidArgs: []string{string(agenthooks.ClaudeCode), string(agenthooks.Codex)},
	}, func(cmd *cobra.Command, args []string) (any, string, error) {
		host, err := agenthooks.ParseHost(args[0])
		if err != nil {
			return nil, "", exitError{code: 2, err: err}
		}
		if idle <= 0 {
			cfg, _, err := a.config(cmd)
			if err != nil {
				return nil, "", err
			}
			idle = cfg.Agents.Idle
		}
		exe, err := os.Executable()
		if err != nil {
			return nil, "", fmt.Errorf("hook install: where is this binary? %w", err)
		}
		var extra []string
		if cmd.Flags().Changed("idle") {
			extra = []string{"--idle", idle.String()}
		}
		entry := agenthooks.Entry{
			Command: agenthooks.HookCommand(exe, host, lane, extra...),
			Timeout: int((idle + time.Minute).Seconds()),
			Mine:    func(c string) bool { return agenthooks.IsHookCommand(c, host, lane) },
		}
		if print {
			snippet := agenthooks.Snippet(host, entry)
			return json.RawMessage(snippet), string(snippet), nil
		}
		home, err := os.UserHomeDir()
		if err != nil && project == "" {
			return nil, "", fmt.Errorf("hook install: no home directory (%w); pass --project DIR", err)
		}
		path := agenthooks.SettingsPath(host, home, project)
		changed, backup, err := agenthooks.Install(path, host, entry, time.Now())
		if err != nil {
			return nil, "", exitError{code: 2, err: err}
		}
		res := map[string]any{"path": path, "lane": lane, "changed": changed, "backup": backup}
		switch {
		case !changed:
			return res, fmt.Sprintf("%s already runs wakewheel's hooks for lane %s; nothing changed\n", path, lane), nil
		case backup != "":
			return res, fmt.Sprintf("installed the hooks for lane %s in %s (%s events); the old file is %s\n", lane, path, strconv.Itoa(len(agenthooks.Events(host))), backup), nil
		}
		return res, fmt.Sprintf("installed the hooks for lane %s in %s (%s events)\n", lane, path, strconv.Itoa(len(agenthooks.Events(host)))), nil
	})
	requiredString(cmd, &lane, "lane", "the lane the agent serves")
	f := cmd.Flags()
	f.StringVar(&project, "project", "", "install into this project's settings instead of the user's")
	f.DurationVar(&idle, "idle", 0, "the Stop hook's idle window (default agents.idle)")
	f.BoolVar(&print, "print", false, "print the snippet instead of changing the file")
	return cmd
}

// hookLoadingWait bounds how long a hook waits for a daemon that is still
// loading before it lets the agent go (fail-open): a restart of a million
// deadlines loads in 1–3 s on a small machine; the CLI waits up to 30 s.
const hookLoadingWait = 2 * time.Second
