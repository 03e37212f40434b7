package obligations

import "errors"

// Sentinel errors. Every error returned by this package wraps exactly one of
// them (test with errors.Is); the message around it says what was wrong and
// how to fix it. Adapters (API, MCP, CLI) map them to codes.
var (
	// ErrBadPolicy: a class policy is missing or inconsistent (cadence > SLO, ...).
	ErrBadPolicy = errors.New("obligations: bad policy")
	// ErrUnknownClass: a class other than human, peer, digest, alert.
	ErrUnknownClass = errors.New("obligations: unknown class")
	// ErrBadLane: an empty lane name, or one with characters outside [A-Za-z0-9._-].
	ErrBadLane = errors.New("obligations: bad lane name")
	// ErrUnknownLane: the lane has never been opened or posted to.
	ErrUnknownLane = errors.New("obligations: unknown lane")
	// ErrTooManyLanes: a new lane beyond the cap (State.SetMaxLanes).
	ErrTooManyLanes = errors.New("obligations: too many lanes")
	// ErrLaneBusy: closing a lane that holds unconsumed obligations.
	ErrLaneBusy = errors.New("obligations: lane holds unconsumed work")
	// ErrBadID: an empty or malformed idempotency id.
	ErrBadID = errors.New("obligations: bad id")
	// ErrNoLocator: an actionable obligation without a hard locator.
	ErrNoLocator = errors.New("obligations: missing hard locator")
	// ErrBodyTooLarge: a body longer than the class's MaxBody.
	ErrBodyTooLarge = errors.New("obligations: body too large")
	// ErrBadBody: a body that is not valid UTF-8 text.
	ErrBadBody = errors.New("obligations: bad body")
	// ErrBadField: an over-long or malformed key, action or locator field.
	ErrBadField = errors.New("obligations: bad field")
	// ErrAckPastReceived: an ack beyond what was delivered to the consumer.
	ErrAckPastReceived = errors.New("obligations: ack past RECEIVED")
	// ErrBadCheckpoint: a checkpoint that does not match the lane's state.
	ErrBadCheckpoint = errors.New("obligations: bad checkpoint")
	// ErrUnknownKey: a deadline key this package does not own.
	ErrUnknownKey = errors.New("obligations: unknown deadline key")
	// ErrBadRecord: a persisted record that cannot be decoded.
	ErrBadRecord = errors.New("obligations: bad record")
	// ErrCorrupt: persisted records that contradict each other at Restore.
	ErrCorrupt = errors.New("obligations: inconsistent records")
	// ErrBadLedger: a ledger line that cannot be decoded.
	ErrBadLedger = errors.New("obligations: bad ledger entry")
)
