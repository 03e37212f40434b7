package deadlines

import (
	"errors"
	"fmt"
	"time"
)

// Errors of a bad mutation. They are wrapped with detail; match them with
// errors.Is.
var (
	ErrBadKey      = errors.New("deadlines: bad deadline key")
	ErrBadWindow   = errors.New("deadlines: bad extend window")
	ErrBadMutation = errors.New("deadlines: bad mutation")
	// ErrFull refuses a new key to a wheel that holds MaxPending deadlines.
	ErrFull = errors.New("deadlines: the wheel is full")
)

// MaxPending is the most deadlines a wheel holds (its index keeps slab
// indices in 3 bytes).
const MaxPending = maxEntries

// Op names a mutation. The zero Op is none: a Mutation must say what it
// does.
type Op uint8

// The mutations, in the timer vocabulary of the package doc.
const (
	OpPush   Op = iota + 1 // fire no later than At
	OpExtend               // sliding window: At = min(now+Window, Since+Cap)
	OpReset                // set At (and Since) unconditionally
	OpCancel               // remove
)

var opNames = [...]string{OpPush: "push", OpExtend: "extend", OpReset: "reset", OpCancel: "cancel"}

func (o Op) String() string {
	if o >= OpPush && int(o) < len(opNames) {
		return opNames[o]
	}
	return fmt.Sprintf("op(%d)", uint8(o))
}

// Mutation is one change to the deadlines: what every owner of keys (the
// roots, the lanes, the leases, the reminders, the beacon) hands to the
// engine, and the only vocabulary of change there is.
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

func (m Mutation) String() string {
	switch m.Op {
	case OpCancel:
		return "cancel " + m.Key
	case OpExtend:
		return fmt.Sprintf("extend %s window %s cap %s", m.Key, m.Window, m.Cap)
	}
	return fmt.Sprintf("%s %s at %s", m.Op, m.Key, m.At.UTC().Format(time.RFC3339Nano))
}

// Validate checks m as a change to any wheel: a valid key, a known op, a
// due time for push and reset, a valid window for extend. (Whether its
// Kind has an action is the engine's to say.)
func (m Mutation) Validate() error {
	if err := CheckKey(m.Key); err != nil {
		return err
	}
	switch m.Op {
	case OpCancel:
		return nil
	case OpExtend:
		return CheckWindow(m.Window, m.Cap)
	case OpPush, OpReset:
		if m.At.IsZero() {
			return fmt.Errorf("%w: %s %q needs a due time", ErrBadMutation, m.Op, truncate(m.Key))
		}
		return nil
	}
	return fmt.Errorf("%w: %s of %q", ErrBadMutation, m.Op, truncate(m.Key))
}

// Applied is what a mutation did.
type Applied struct {
	Changed bool      // the pending deadline was created, moved or removed
	Pending bool      // the key is pending afterwards
	At      time.Time // its due time, when pending
}

// Apply validates m and applies it at now. It reports what changed, so
// the caller persists only a deadline that moved.
func (w *Wheel) Apply(now time.Time, m Mutation) (Applied, error) {
	if err := m.Validate(); err != nil {
		return Applied{}, err
	}
	if m.Op != OpCancel && w.slab.live >= MaxPending {
		if _, pending := w.Get(m.Key); !pending {
			return Applied{}, fmt.Errorf("%w: it holds %d pending deadlines, the most it can; %s %q is refused (cancel deadlines, or let them fire)", ErrFull, MaxPending, m.Op, truncate(m.Key))
		}
	}
	var changed bool
	switch m.Op {
	case OpPush:
		changed = w.Push(m.Key, m.Kind, m.At, m.Payload)
	case OpExtend:
		before, had := w.Get(m.Key)
		at := w.Extend(m.Key, m.Kind, now, m.Window, m.Cap)
		changed = !had || !before.At.Equal(at)
	case OpReset:
		w.Reset(Deadline{Key: m.Key, Kind: m.Kind, At: m.At, Since: m.Since, Payload: m.Payload})
		changed = true
	case OpCancel:
		return Applied{Changed: w.Cancel(m.Key)}, nil
	}
	d, _ := w.Get(m.Key)
	return Applied{Changed: changed, Pending: true, At: d.At}, nil
}
