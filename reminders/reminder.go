package reminders

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/wakewheel/wakewheel/deadlines"
	ob "github.com/wakewheel/wakewheel/obligations"
)

// Kind is the deadline kind of every reminder, Prefix the namespace of
// their keys.
const (
	Kind   = "reminder"
	Prefix = "reminder/"
)

// Bounds.
const (
	MaxNameLen = 200
	MaxNoteLen = 4096
)

// Sentinels; every error of the package wraps one.
var (
	// ErrBadName: an empty, over-long or unsafe name.
	ErrBadName = errors.New("reminders: bad name")
	// ErrPast: a due time before now.
	ErrPast = errors.New("reminders: due time in the past")
	// ErrBadPayload: a message or note that is too long or not text, or a
	// stored payload that does not decode.
	ErrBadPayload = errors.New("reminders: bad payload")
)

// Key is the deadline key of the reminder name.
func Key(name string) string { return Prefix + name }

// ValidateName refuses a name that deadlines.CheckName refuses (empty,
// longer than MaxNameLen, not UTF-8, a control character, "." or "..")
// or that holds '/' or "..": names become path segments of the API and
// of deadline keys.
func ValidateName(name string) error {
	if err := deadlines.CheckName("reminder name", name, MaxNameLen); err != nil {
		return fmt.Errorf("%w: %v", ErrBadName, err)
	}
	switch {
	case strings.Contains(name, "/"):
		return fmt.Errorf("%w: %q holds '/' (use - or . to group names)", ErrBadName, name)
	case strings.Contains(name, ".."):
		return fmt.Errorf("%w: %q holds \"..\"", ErrBadName, name)
	}
	return nil
}

// CheckDue refuses a due time before now: a reminder "at" a time that
// has passed would fire at once, which is never what was meant.
func CheckDue(at, now time.Time) error {
	if at.Before(now) {
		return fmt.Errorf("%w: %s is %s ago; give a time to come", ErrPast, at.UTC().Format(time.RFC3339), now.Sub(at).Round(time.Second))
	}
	return nil
}

// Payload is what a reminder carries to its fire.
type Payload struct {
	Message string `json:"message,omitempty"` // logged at fire
	Lane    string `json:"lane,omitempty"`    // posted to at fire, when set
	Note    string `json:"note,omitempty"`    // the body of the alert posted
}

// Validate checks the payload's text fields and the lane name.
func (p Payload) Validate() error {
	if p.Lane != "" {
		if err := ob.ValidateLane(p.Lane); err != nil {
			return err
		}
	}
	for _, f := range []struct{ name, v string }{{"message", p.Message}, {"note", p.Note}} {
		if len(f.v) > MaxNoteLen {
			return fmt.Errorf("%w: the %s is %d bytes, at most %d", ErrBadPayload, f.name, len(f.v), MaxNoteLen)
		}
		if !utf8.ValidString(f.v) {
			return fmt.Errorf("%w: the %s is not UTF-8 text", ErrBadPayload, f.name)
		}
	}
	if p.Note != "" && p.Lane == "" {
		return fmt.Errorf("%w: a note is the body of the alert posted to a lane: give the lane too", ErrBadPayload)
	}
	return nil
}

// payloadV1 marks an encoded Payload. A payload without it is the plain
// message text that reminders carried before they could name a lane.
const payloadV1 = 0x01

// Encode returns the stored form of p (nil for an empty payload).
func Encode(p Payload) []byte {
	if p == (Payload{}) {
		return nil
	}
	if p.Lane == "" && p.Note == "" && !strings.HasPrefix(p.Message, string(rune(payloadV1))) {
		return []byte(p.Message) // the original form, still read by older builds
	}
	b, _ := json.Marshal(p) // plain strings always marshal
	return append([]byte{payloadV1}, b...)
}

// Decode reads a stored payload.
func Decode(b []byte) (Payload, error) {
	if len(b) == 0 || b[0] != payloadV1 {
		return Payload{Message: string(b)}, nil
	}
	var p Payload
	if err := json.Unmarshal(b[1:], &p); err != nil {
		return Payload{}, fmt.Errorf("%w: %v", ErrBadPayload, err)
	}
	return p, nil
}

// Obligation is the alert that the reminder name, due at due, posts to its
// lane when it fires. ok is false when the reminder names no lane.
func Obligation(name string, p Payload, due time.Time) (o ob.Obligation, ok bool) {
	if p.Lane == "" {
		return ob.Obligation{}, false
	}
	body := p.Note
	if body == "" {
		body = fmt.Sprintf("reminder %s is due (set for %s)", name, due.UTC().Format(time.RFC3339))
		if p.Message != "" {
			body += ": " + p.Message
		}
	}
	return ob.Obligation{
		Lane:  p.Lane,
		ID:    fireID(name, due),
		Class: ob.ClassAlert,
		Body:  body,
		Key:   Key(name),
		// An alert is actionable and carries a hard locator: what it
		// locates is the reminder itself.
		Locator: ob.Locator{Repo: "wakewheel", Issue: Key(name)},
	}, true
}

// fireID is the idempotency id of the alert for name's fire due at due:
// the name escaped (an id holds no spaces) and the due time; a name too
// long for an id once escaped is replaced by its hash.
func fireID(name string, due time.Time) string {
	at := "@" + strconv.FormatInt(due.UnixNano(), 10)
	id := Prefix + escapeSpaces(name) + at
	if len(id) > ob.MaxIDLen {
		sum := sha256.Sum256([]byte(name))
		id = Prefix + "sha256-" + hex.EncodeToString(sum[:16]) + at
	}
	return id
}

// escapeSpaces writes every space and '%' of name as %XX, so the result is
// one word and two names never escape alike.
func escapeSpaces(name string) string {
	var b strings.Builder
	for _, r := range name {
		if r == '%' || unicode.IsSpace(r) {
			fmt.Fprintf(&b, "%%%02X", string(r))
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}
