package deadlines

import "time"

// Deadline is one pending timer of the engine.
//
// Key is unique in a wheel ("burst/<root>", "reconcile/<root>", "lease/<name>",
// "redeliver/<lane>/<class>", "absent/<host>", ...). Kind selects the action
// that runs when it falls due. At is the instant it may fire, never earlier.
// Since is the start of the current extend window (zero for a pushed deadline).
// Payload is opaque to the wheel.
type Deadline struct {
	Key     string
	Kind    string
	At      time.Time
	Since   time.Time
	Payload []byte
}
