package obligations

import (
	"fmt"
	"strings"
	"time"

	"github.com/wakewheel/wakewheel/deadlines"
)

// Class says what kind of obligation a message is, and so how urgently an
// unconsumed one re-wakes its lane.
type Class string

// The four classes, in the order digests and reports list them.
const (
	// ClassHuman is a message from a person. It may be plain conversation, so it
	// needs no locator. Never merged, never lost.
	ClassHuman Class = "human"
	// ClassPeer is a message from another agent: a claim to verify, so it carries
	// a hard locator. Never merged, never lost.
	ClassPeer Class = "peer"
	// ClassDigest is a machine summary ("N files changed in repo R"). Unconsumed
	// digests coalesce into one cumulative entry.
	ClassDigest Class = "digest"
	// ClassAlert is a machine alarm. Unconsumed alerts coalesce by Key.
	ClassAlert Class = "alert"
)

// Classes lists every valid class in display order.
var Classes = [...]Class{ClassHuman, ClassPeer, ClassDigest, ClassAlert}

const numClasses = len(Classes)

// DefaultMaxBody is the body limit of a class whose policy leaves MaxBody
// zero: 64 KiB is far more than any message an agent should read in a
// digest, and small enough that a grouped synced commit stays cheap.
const DefaultMaxBody = 64 << 10

// ParseClass returns the class named s, or an error wrapping ErrUnknownClass
// that lists the valid classes.
func ParseClass(s string) (Class, error) {
	c := Class(s)
	if c.index() < 0 {
		return "", fmt.Errorf("%w %q (valid: %s)", ErrUnknownClass, s, classList())
	}
	return c, nil
}

// Valid reports whether c is one of the four classes.
func (c Class) Valid() bool { return c.index() >= 0 }

// Actionable reports whether obligations of class c are facts someone may
// act on, and so must carry a hard locator: peer, digest and alert are;
// human is not (a person may simply be talking).
func (c Class) Actionable() bool { return c == ClassPeer || c == ClassDigest || c == ClassAlert }

// Coalesced reports whether unconsumed obligations of class c are merged in
// a digest (digest: into one entry; alert: by Key). Human and peer messages
// never are.
func (c Class) Coalesced() bool { return c == ClassDigest || c == ClassAlert }

func (c Class) index() int {
	for i, k := range Classes {
		if k == c {
			return i
		}
	}
	return -1
}

func classList() string {
	names := make([]string, numClasses)
	for i, c := range Classes {
		names[i] = string(c)
	}
	return strings.Join(names, ", ")
}

// Policy is the timing and size limit of one class.
type Policy struct {
	// Cadence is the fallback re-wake period while obligations of the class
	// stay unconsumed. It is not a heartbeat: an empty lane never wakes.
	Cadence time.Duration
	// SLO is the urgency bound: an unconsumed obligation re-wakes its lane
	// no later than SLO after it was posted or the lane last woke.
	// Cadence <= SLO; the slack SLO-Cadence absorbs the runner's lateness.
	SLO time.Duration
	// MaxBody is the largest body accepted, in bytes; 0 means DefaultMaxBody.
	MaxBody int
}

// Policies holds one Policy per class.
type Policies map[Class]Policy

// DefaultPolicies returns the registered defaults (the same numbers as the
// configs package): human 5m/15m, peer 10m/30m, digest 30m/2h, alert 15m/1h,
// each with a 64 KiB body limit.
func DefaultPolicies() Policies {
	return Policies{
		ClassHuman:  {Cadence: 5 * time.Minute, SLO: 15 * time.Minute, MaxBody: DefaultMaxBody},
		ClassPeer:   {Cadence: 10 * time.Minute, SLO: 30 * time.Minute, MaxBody: DefaultMaxBody},
		ClassDigest: {Cadence: 30 * time.Minute, SLO: 2 * time.Hour, MaxBody: DefaultMaxBody},
		ClassAlert:  {Cadence: 15 * time.Minute, SLO: time.Hour, MaxBody: DefaultMaxBody},
	}
}

// Validate checks that every class has a policy, that cadence and SLO are
// positive with cadence <= SLO, and that MaxBody is not negative. Errors
// wrap ErrBadPolicy (or ErrUnknownClass for a stray class).
func (p Policies) Validate() error {
	for c := range p {
		if !c.Valid() {
			return fmt.Errorf("%w %q in policies (valid: %s)", ErrUnknownClass, c, classList())
		}
	}
	for _, c := range Classes {
		pol, ok := p[c]
		switch {
		case !ok:
			return fmt.Errorf("%w: class %s has no policy", ErrBadPolicy, c)
		case pol.Cadence <= 0:
			return fmt.Errorf("%w: class %s: cadence %v must be positive", ErrBadPolicy, c, pol.Cadence)
		case pol.SLO <= 0:
			return fmt.Errorf("%w: class %s: SLO %v must be positive", ErrBadPolicy, c, pol.SLO)
		case pol.Cadence > pol.SLO:
			return fmt.Errorf("%w: class %s: cadence %v is longer than its SLO %v (cadence must be <= SLO)",
				ErrBadPolicy, c, pol.Cadence, pol.SLO)
		case pol.MaxBody < 0:
			return fmt.Errorf("%w: class %s: max body %d must not be negative", ErrBadPolicy, c, pol.MaxBody)
		}
	}
	return nil
}

// normalized returns a copy with MaxBody defaults filled in, indexed by class.
func (p Policies) normalized() [numClasses]Policy {
	var out [numClasses]Policy
	for i, c := range Classes {
		out[i] = p[c]
		if out[i].MaxBody == 0 {
			out[i].MaxBody = DefaultMaxBody
		}
	}
	return out
}

// Timetable declares how the lanes' deadlines are timed under p (see
// deadlines.Retime): redeliver/<lane>/<class> by its class's cadence.
// Nothing else is claimed.
func (p Policies) Timetable() deadlines.Timetable {
	return func(key string) (deadlines.Timing, bool) {
		_, c, ok := ParseRedeliverKey(key)
		if !ok {
			return deadlines.Timing{}, false
		}
		pol, ok := p[c]
		return deadlines.Timing{Window: pol.Cadence}, ok
	}
}
