package obligations

import (
	"fmt"
	"time"
)

// TurnMode says how the product caused an agent turn: which of the ways of
// waking an agent handed it the lane's work (or woke it for nothing).
type TurnMode string

const (
	// TurnHook: a host's Stop hook blocked the agent's stop with the digest.
	TurnHook TurnMode = "hook"
	// TurnRunner: the lane's headless runner started the operator's command.
	TurnRunner TurnMode = "runner"
	// TurnPane: a prompt was typed into the agent's terminal pane.
	TurnPane TurnMode = "pane"
	// TurnMCPWait: an MCP wait returned to the agent (woken or timed out).
	TurnMCPWait TurnMode = "mcp_wait"
	// TurnHeartbeat: a fixed-interval wake of an old mechanism; this
	// package never records one, imported ledgers may hold them.
	TurnHeartbeat TurnMode = "heartbeat"
)

var turnModes = [...]TurnMode{TurnHook, TurnRunner, TurnPane, TurnMCPWait, TurnHeartbeat}

// Valid reports whether m is a known mode.
func (m TurnMode) Valid() bool {
	for _, k := range turnModes {
		if m == k {
			return true
		}
	}
	return false
}

// Turn records one agent turn the product caused on lane: its mode, the
// wake id it carried (if any) and whether it found work (false: a no-op
// turn, the cost the doctrine exists to cut). It changes no cursor and
// emits no wake: the effects are one ledger entry, written without fsync
// (losing it to a power loss only under-counts a cost).
//
// Errors: ErrBadLane, ErrUnknownLane, ErrBadField (an unknown mode or an
// over-long wake id).
func (s *State) Turn(name string, mode TurnMode, wakeID string, work bool, now time.Time) (Effects, error) {
	l, err := s.lane(name)
	if err != nil {
		return Effects{}, err
	}
	if !mode.Valid() || mode == TurnHeartbeat {
		return Effects{}, fmt.Errorf("%w: turn mode %q (want %s, %s, %s or %s)", ErrBadField, mode,
			TurnHook, TurnRunner, TurnPane, TurnMCPWait)
	}
	if len(wakeID) > MaxIDLen {
		return Effects{}, fmt.Errorf("%w: wake id is %d bytes, at most %d", ErrBadField, len(wakeID), MaxIDLen)
	}
	return Effects{Ledger: []Entry{{Kind: EntryTurn, Lane: l.name, Seq: l.head(), WakeID: wakeID,
		Mode: mode, Work: work, At: now}}}, nil
}
