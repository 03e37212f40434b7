// Package agenthooks speaks the command-hook protocol of coding-agent
// hosts (Claude Code, Codex), so that an agent is woken by its host's own
// lifecycle events instead of polling: `wakewheel hook HOST --lane L`.
//
// A host runs the hook with one JSON event on stdin (event.go) and reads
// the answer on stdout. Run dispatches on hook_event_name (hook.go):
//
//	Stop              block with the digest (decision "block", reason) when the
//	                  lane holds work; else long-poll the daemon up to Idle and
//	                  block on a wake, or let the agent rest
//	SessionStart      the resume digest as hookSpecificOutput.additionalContext
//	UserPromptSubmit  unconsumed human messages as additionalContext
//	PreCompact        park (checkpoint CONSUMED) before the context goes
//	SessionEnd        park when the reason is clear; the session ended
//
// The pure rules are in decide.go: ShouldBlock (never block twice for one
// wake in a stop chain: stop_hook_active plus the wake id the session last
// blocked with, which the daemon keeps) and the texts. settings.go merges
// the hook entries into a host's settings file for `hook install`.
//
// # Invariants
//
//   - Fail-open: Run never returns an error. Whatever fails (no daemon, an
//     unknown lane, a malformed event) the agent is not blocked and
//     Result.Note says why (the command prints it on stderr, exits 0).
//   - A block is recorded (an agent turn of mode hook, and the wake id
//     blocked) before it is answered; when the record fails, no block.
//   - Waiting goes through the daemon's long poll (at most MaxWait per
//     request, api.MaxWait by default), never faster.
//   - Merge keeps everything else in a settings file and is idempotent.
//
// The protocol details and their sources are in docs/AGENT-HOSTS.md.
//
// # Imports
//
// api (the client and its types), lanerun (session types), obligations
// (digests), internal/clock. Never viper, configs or cmd.
package agenthooks
