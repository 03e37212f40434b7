package agenthooks

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// Host is a coding-agent CLI whose command hooks wakewheel speaks.
type Host string

const (
	ClaudeCode Host = "claude-code"
	Codex      Host = "codex"
)

// Hosts lists the supported hosts.
var Hosts = []Host{ClaudeCode, Codex}

// ParseHost checks a host name given on the command line.
func ParseHost(s string) (Host, error) {
	for _, h := range Hosts {
		if string(h) == s {
			return h, nil
		}
	}
	return "", fmt.Errorf("%w %q (want claude-code or codex)", ErrUnknownHost, s)
}

// The lifecycle events wakewheel acts on (hook_event_name).
const (
	EventSessionStart     = "SessionStart"
	EventUserPromptSubmit = "UserPromptSubmit"
	EventStop             = "Stop"
	EventPreCompact       = "PreCompact"
	EventSessionEnd       = "SessionEnd"
)

// Event is the JSON object a host writes on a command hook's stdin: the
// fields common to every event and the few per-event ones wakewheel reads.
// Unknown fields are ignored (hosts add fields over time).
type Event struct {
	SessionID      string `json:"session_id"`
	TranscriptPath string `json:"transcript_path"`
	CWD            string `json:"cwd"`
	HookEventName  string `json:"hook_event_name"`
	// Stop: true when the agent is already continuing because a Stop hook
	// blocked its previous stop.
	StopHookActive bool `json:"stop_hook_active"`
	// SessionStart: startup, resume, clear or compact.
	Source string `json:"source"`
	// SessionEnd: clear, logout, prompt_input_exit, other, ...
	Reason string `json:"reason"`
	// PreCompact: manual or auto.
	Trigger string `json:"trigger"`
	// UserPromptSubmit: the prompt submitted.
	Prompt string `json:"prompt"`
}

// maxEvent bounds the event read from stdin (a prompt or a last message
// may be long, but not without bound).
const maxEvent = 8 << 20

// Errors of the package.
var (
	ErrUnknownHost = errors.New("agenthooks: unknown host")
	ErrBadEvent    = errors.New("agenthooks: bad hook event")
	ErrBadSettings = errors.New("agenthooks: settings file cannot be merged")
)

// Decode reads one event from r.
func Decode(r io.Reader) (Event, error) {
	b, err := io.ReadAll(io.LimitReader(r, maxEvent+1))
	if err != nil {
		return Event{}, fmt.Errorf("%w: read stdin: %v", ErrBadEvent, err)
	}
	if len(b) > maxEvent {
		return Event{}, fmt.Errorf("%w: more than %d bytes on stdin", ErrBadEvent, maxEvent)
	}
	var ev Event
	if err := json.Unmarshal(b, &ev); err != nil {
		return Event{}, fmt.Errorf("%w: stdin is not the host's JSON event: %v", ErrBadEvent, err)
	}
	if ev.HookEventName == "" {
		return Event{}, fmt.Errorf("%w: no hook_event_name in the event", ErrBadEvent)
	}
	return ev, nil
}

// Output is what a hook writes on stdout (nothing when empty).
type Output struct {
	// Stop: "block" keeps the agent working, Reason its next instruction.
	Decision string `json:"decision,omitempty"`
	Reason   string `json:"reason,omitempty"`
	// SessionStart, UserPromptSubmit: context added for the agent.
	HookSpecificOutput *SpecificOutput `json:"hookSpecificOutput,omitempty"`
}

// SpecificOutput is the per-event part of an Output.
type SpecificOutput struct {
	HookEventName     string `json:"hookEventName"`
	AdditionalContext string `json:"additionalContext,omitempty"`
}

// Empty reports whether o says nothing (the hook then prints nothing and
// the host carries on as if there were no hook).
func (o Output) Empty() bool { return o.Decision == "" && o.HookSpecificOutput == nil }

// Block is the Stop answer that keeps the agent working on reason.
func Block(reason string) Output { return Output{Decision: "block", Reason: reason} }

// Context is the answer that adds text to the agent's context.
func Context(event, text string) Output {
	return Output{HookSpecificOutput: &SpecificOutput{HookEventName: event, AdditionalContext: text}}
}
