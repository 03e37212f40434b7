package lanerun

import (
	"encoding/json"
	"fmt"
	"time"

	ob "github.com/wakewheel/wakewheel/obligations"
)

// SessionState is where a host's agent session stands, as its hooks report
// it.
type SessionState string

const (
	// SessionActive: the agent is in a turn (it started, a prompt was
	// submitted, or a Stop hook blocked it with work). Its next Stop hook
	// sees new work; the runner and the pane leave it alone.
	SessionActive SessionState = "active"
	// SessionWaiting: a Stop hook is waiting for a wake (until Until); it
	// will block with the digest itself.
	SessionWaiting SessionState = "waiting"
	// SessionResting: the Stop hook's idle window ended and the agent came
	// to rest; only the lane's runner or its pane can reach it now.
	SessionResting SessionState = "resting"
	// SessionEnded: the host ended the session (SessionEnd).
	SessionEnded SessionState = "ended"
)

// Valid reports whether st is a known state.
func (st SessionState) Valid() bool {
	switch st {
	case SessionActive, SessionWaiting, SessionResting, SessionEnded:
		return true
	}
	return false
}

// Session is the host session last seen serving a lane: what a runner
// needs to resume it by id (Host, ID, CWD) and what the hooks need to
// never block twice for one wake (LastBlock).
type Session struct {
	Host  string       `json:"host"`
	ID    string       `json:"id"`
	CWD   string       `json:"cwd,omitempty"`
	State SessionState `json:"state"`
	// Until bounds an active or waiting state: past it the session counts
	// as resting (a crashed host or a killed hook never reports again).
	Until time.Time `json:"until,omitzero"`
	// LastBlock is the wake id the session's Stop hook last blocked with.
	LastBlock string    `json:"last_block,omitempty"`
	At        time.Time `json:"at"`
}

// Busy reports whether the session is in a turn or a Stop hook waits for
// a wake at now: then the runner and the pane stay out of its way.
func (s Session) Busy(now time.Time) bool {
	return (s.State == SessionActive || s.State == SessionWaiting) && now.Before(s.Until)
}

// Report is what a hook tells the daemon about a lane's session: its
// state (Session, optional), the turn it caused (Turn, optional), and the
// wake id it blocked with (Block).
type Report struct {
	Session *SessionReport `json:"session,omitempty"`
	Turn    *Turn          `json:"turn,omitempty"`
}

// SessionReport is one hook's view of its session.
type SessionReport struct {
	Host  string       `json:"host"`
	ID    string       `json:"id"`
	CWD   string       `json:"cwd,omitempty"`
	State SessionState `json:"state"`
	// Wait is how long a waiting Stop hook will wait (its idle window).
	Wait time.Duration `json:"wait,omitempty"`
	// Block is the wake id the Stop hook blocked with (empty: none).
	Block string `json:"block,omitempty"`
}

// Turn is an agent turn to record in the ledger.
type Turn struct {
	Mode   ob.TurnMode `json:"mode"`
	WakeID string      `json:"wake_id,omitempty"`
	Work   bool        `json:"work"`
}

// maxSessionField bounds a host, session id or working directory.
const maxSessionField = 4096

func (r *SessionReport) check() error {
	switch {
	case r.Host == "" || len(r.Host) > 64:
		return fmt.Errorf("%w: session host %q (want a host name such as claude-code or codex)", ErrBadReport, r.Host)
	case len(r.ID) > maxSessionField || len(r.CWD) > maxSessionField || len(r.Block) > ob.MaxIDLen:
		return fmt.Errorf("%w: a session id, cwd or block is too long", ErrBadReport)
	case !r.State.Valid():
		return fmt.Errorf("%w: session state %q (want active, waiting, resting or ended)", ErrBadReport, r.State)
	case r.Wait < 0 || r.Wait > 24*time.Hour:
		return fmt.Errorf("%w: wait %s out of 0..24h", ErrBadReport, r.Wait)
	}
	return nil
}

// apply folds a report into the session the lane had (prev), at now.
// A report from another session id replaces the session; LastBlock
// survives within one session. grace bounds an active state.
func apply(prev Session, r SessionReport, grace time.Duration, now time.Time) Session {
	s := Session{Host: r.Host, ID: r.ID, CWD: r.CWD, State: r.State, At: now}
	if prev.Host == r.Host && prev.ID == r.ID {
		s.LastBlock = prev.LastBlock
		if s.CWD == "" {
			s.CWD = prev.CWD
		}
	}
	if r.Block != "" {
		s.LastBlock = r.Block
	}
	switch r.State {
	case SessionActive:
		s.Until = now.Add(grace)
	case SessionWaiting:
		s.Until = now.Add(r.Wait)
	}
	return s
}

// Sessions are stored as agent/s/<lane> → JSON Session.
const (
	StoreNS       = "agent"
	sessionPrefix = "s/"
)

func encodeSession(s Session) []byte {
	b, _ := json.Marshal(s) // plain fields always marshal
	return b
}
