package fleet

import (
	"encoding/json"
	"fmt"
	"time"

	ob "github.com/wakewheel/wakewheel/obligations"
)

// envelopeVersion is the version of the Envelope encoding.
const envelopeVersion = 1

// Envelope is an obligation on its way from the host it was posted on
// (Origin) to its lane's home (Home): the body of a stream message and of
// an outbox record. The home assigns the lane sequence at import.
type Envelope struct {
	V       int        `json:"v"`
	Lane    string     `json:"lane"`
	ID      string     `json:"id"`
	Class   ob.Class   `json:"class"`
	Body    string     `json:"body"`
	Locator ob.Locator `json:"locator,omitzero"`
	Key     string     `json:"key,omitempty"`
	Canary  bool       `json:"canary,omitempty"`
	Home    string     `json:"home"`
	Origin  string     `json:"origin"`
	Queued  time.Time  `json:"queued"` // when the origin accepted it
}

// envelopeOf wraps o for home.
func envelopeOf(o ob.Obligation, home, origin string, now time.Time) Envelope {
	return Envelope{V: envelopeVersion, Lane: o.Lane, ID: o.ID, Class: o.Class, Body: o.Body,
		Locator: o.Locator, Key: o.Key, Canary: o.Canary, Home: home, Origin: origin, Queued: now}
}

// Obligation is what the home posts.
func (e Envelope) Obligation() ob.Obligation {
	return ob.Obligation{Lane: e.Lane, ID: e.ID, Class: e.Class, Body: e.Body, Locator: e.Locator, Key: e.Key, Canary: e.Canary}
}

// Subject is where the envelope is published.
func (e Envelope) Subject() string { return Subject(e.Home, e.Lane, e.Origin) }

// decodeEnvelope reads a stream message's body and checks it against the
// subject it came on. Content rules (class, body size) are the home's
// service's to apply.
func decodeEnvelope(subject string, data []byte) (Envelope, error) {
	var e Envelope
	if err := json.Unmarshal(data, &e); err != nil {
		return Envelope{}, fmt.Errorf("%w on %s: not JSON: %v", ErrMalformed, subject, err)
	}
	if e.V != envelopeVersion {
		return Envelope{}, fmt.Errorf("%w on %s: envelope version %d, this daemon reads %d", ErrMalformed, subject, e.V, envelopeVersion)
	}
	home, lane, origin, err := ParseSubject(subject)
	if err != nil {
		return Envelope{}, fmt.Errorf("%w: %v", ErrMalformed, err)
	}
	if e.Home != home || e.Lane != lane || e.Origin != origin {
		return Envelope{}, fmt.Errorf("%w on %s: body says lane %q home %q origin %q", ErrMalformed, subject, e.Lane, e.Home, e.Origin)
	}
	if e.ID == "" {
		return Envelope{}, fmt.Errorf("%w on %s: no obligation id", ErrMalformed, subject)
	}
	return e, nil
}
