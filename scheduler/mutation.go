package scheduler

import (
	"errors"
	"fmt"
	"time"
	"unicode/utf8"
)

// Errors returned for bad mutations. They are wrapped with detail; match
// them with errors.Is.
var (
	ErrBadKey      = errors.New("scheduler: bad deadline key")
	ErrUnknownKind = errors.New("scheduler: no handler registered for kind")
	ErrBadWindow   = errors.New("scheduler: bad extend window")
	ErrStopped     = errors.New("scheduler: runner stopped")
)

// MaxKeyLen bounds a deadline key (bytes). Keys name things ("burst/<root>"),
// and a root path is at most PATH_MAX.
const MaxKeyLen = 4096

// Op names a mutation.
type Op int

// The mutations.
const (
	OpPush   Op = iota // fire no later than At
	OpExtend           // sliding window: At = min(now+Window, Since+Cap)
	OpReset            // set At unconditionally
	OpCancel           // remove
)

func (o Op) String() string {
	return [...]string{"push", "extend", "reset", "cancel"}[o]
}

// Mutation is one change to the deadlines, as it enters the engine.
type Mutation struct {
	Op      Op
	Key     string
	Kind    string // push, extend, reset: the action to run
	At      time.Time
	Window  time.Duration // extend
	Cap     time.Duration // extend
	Payload []byte        // push, reset
	Since   time.Time     // reset: the start of a sliding window to keep (zero for none)
}

// Applied is what a mutation did.
type Applied struct {
	Changed bool      // the pending deadline was created, moved or removed
	Pending bool      // the key is pending afterwards
	At      time.Time // its due time, when pending
}

func (m Mutation) validate(known func(kind string) bool) error {
	if m.Key == "" || len(m.Key) > MaxKeyLen || !utf8.ValidString(m.Key) {
		return fmt.Errorf("%w: %q (want 1..%d bytes of UTF-8)", ErrBadKey, truncate(m.Key), MaxKeyLen)
	}
	for _, r := range m.Key {
		if r < 0x20 || r == 0x7f {
			return fmt.Errorf("%w: %q contains a control character", ErrBadKey, truncate(m.Key))
		}
	}
	if m.Op == OpCancel {
		return nil
	}
	if !known(m.Kind) {
		return fmt.Errorf("%w %q", ErrUnknownKind, m.Kind)
	}
	if m.Op == OpExtend {
		if m.Window <= 0 {
			return fmt.Errorf("%w: window %s must be positive", ErrBadWindow, m.Window)
		}
		if m.Cap < m.Window {
			return fmt.Errorf("%w: cap %s must be at least the window %s", ErrBadWindow, m.Cap, m.Window)
		}
	} else if m.At.IsZero() {
		return fmt.Errorf("scheduler: %s %q needs a due time", m.Op, m.Key)
	}
	return nil
}

func truncate(s string) string {
	if len(s) > 64 {
		return s[:64] + "…"
	}
	return s
}
