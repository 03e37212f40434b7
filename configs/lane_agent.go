package configs

import (
	"strings"
	"time"
)

// LaneAgent is how a lane's agent is reached besides its host's hooks
// (config file only: nothing an agent sends can set a command):
//
//	lanes:
//	  reviewer:
//	    agent: claude --resume "$WAKEWHEEL_SESSION_ID" -p   # headless runner, digest on stdin
//	    agent_timeout: 20m                                 # default agents.timeout
//	    agent_input: text                                  # or json
//	    tmux: work:reviewer.0                              # pane to type a prompt into
//	    prompt: "new work on {lane}: wakewheel digest --lane {lane}"  # default agents.prompt
type LaneAgent struct {
	Agent        string
	AgentTimeout time.Duration // 0: agents.timeout
	AgentInput   string        // "text" (default) or "json"
	Tmux         string
	Prompt       string // "": agents.prompt
}

const agentFieldNames = "agent, agent_timeout, agent_input, tmux, prompt"

func isAgentField(f string) bool {
	switch f {
	case "agent", "agent_timeout", "agent_input", "tmux", "prompt":
		return true
	}
	return false
}

// setAgentField sets one of the agent fields from a file value, or says
// what is wrong with it.
func (l *LaneAgent) setAgentField(f string, val any) string {
	text, ok := scalarText(val)
	if !ok {
		return "must be a value, not a table or a list"
	}
	text = strings.TrimSpace(text)
	switch f {
	case "agent":
		l.Agent = text
	case "agent_timeout":
		d, err := time.ParseDuration(text)
		if err != nil {
			return "not a duration (write it with a unit: 30s, 20m, 1h)"
		}
		if d < 10*time.Second || d > 24*time.Hour {
			return "must be between 10s and 24h (the range of agents.timeout)"
		}
		l.AgentTimeout = d
	case "agent_input":
		if text != "text" && text != "json" {
			return `must be "text" (the digest as the agent reads it) or "json"`
		}
		l.AgentInput = text
	case "tmux":
		if strings.ContainsAny(text, " \t\r\n") {
			return "must be one tmux target such as session:window.pane or %3"
		}
		l.Tmux = text
	case "prompt":
		if strings.ContainsAny(text, "\r\n") {
			return "must be one line: a newline would submit the prompt early"
		}
		l.Prompt = text
	}
	return ""
}
