package obligations

import (
	"fmt"
	"time"
	"unicode"
	"unicode/utf8"
)

// Field limits that are not policy (they bound keys and identifiers, not
// content): an id, a coalescing key or an action names a thing, it does not
// carry it.
const (
	MaxIDLen    = 256 // bytes of an idempotency id, coalescing key or action
	MaxFieldLen = 512 // bytes of one locator field
)

// Locator points at the fact an obligation is about. A hard locator has a
// Repo and at least one of Issue, SHA, File: enough to verify the claim
// before acting on it.
type Locator struct {
	Repo  string `json:"repo,omitempty"`
	Issue string `json:"issue,omitempty"`
	SHA   string `json:"sha,omitempty"`
	File  string `json:"file,omitempty"`
}

// Hard reports whether l is a hard locator.
func (l Locator) Hard() bool {
	return l.Repo != "" && (l.Issue != "" || l.SHA != "" || l.File != "")
}

// IsZero reports whether l is empty.
func (l Locator) IsZero() bool { return l == Locator{} }

// Obligation is one message in a lane: something its consumer owes a look.
//
// To post, the caller fills Lane, ID, Class, Body and, as needed, Locator,
// Key and Canary; Post assigns Seq and Posted. Obligations are immutable
// once posted.
type Obligation struct {
	Lane    string    `json:"lane"`
	Seq     uint64    `json:"seq"`
	ID      string    `json:"id"`    // producer's idempotency id, unique in the lane
	Class   Class     `json:"class"` // human, peer, digest, alert
	Body    string    `json:"body"`
	Locator Locator   `json:"locator,omitzero"`
	Key     string    `json:"key,omitempty"` // coalescing key (alerts)
	Canary  bool      `json:"canary,omitempty"`
	Posted  time.Time `json:"posted"`
	// Duplicate is set only on the copy Post returns for a re-posted id:
	// the obligation is the original one. Never persisted.
	Duplicate bool `json:"duplicate,omitempty"`
	// Compacted is set with Duplicate when the original was compacted
	// (retention.go): its body is gone, Seq, Class and Posted remain.
	Compacted bool `json:"compacted,omitempty"`
}

// Check applies Post's rules for o (lane, id, class, body, locator, key)
// under p, without a State. A fleet member checks a post it forwards to
// another host before it answers, so a post it accepts is one its home
// accepts under the same policies.
func (o Obligation) Check(p Policies) error {
	if err := ValidateLane(o.Lane); err != nil {
		return err
	}
	if err := validateID(o.ID); err != nil {
		return err
	}
	pol := p.normalized()
	return o.validate(&pol)
}

// validate checks the content of o (its lane and id are checked first, by
// Post) against the class policy table.
func (o *Obligation) validate(pol *[numClasses]Policy) error {
	ci := o.Class.index()
	if ci < 0 {
		return fmt.Errorf("%w %q (valid: %s)", ErrUnknownClass, o.Class, classList())
	}
	if limit := pol[ci].MaxBody; len(o.Body) > limit {
		return fmt.Errorf("%w: body is %d bytes; class %s allows at most %d bytes (setting obligations.max_body)",
			ErrBodyTooLarge, len(o.Body), o.Class, limit)
	}
	if !utf8.ValidString(o.Body) {
		return fmt.Errorf("%w: body is not valid UTF-8 text", ErrBadBody)
	}
	for _, f := range [...]struct{ name, v string }{
		{"repo", o.Locator.Repo}, {"issue", o.Locator.Issue},
		{"sha", o.Locator.SHA}, {"file", o.Locator.File},
	} {
		if err := checkField("locator "+f.name, f.v, MaxFieldLen); err != nil {
			return err
		}
	}
	if o.Class.Actionable() && !o.Locator.Hard() {
		return fmt.Errorf("%w: class %s is actionable and needs repo plus at least one of issue, sha, file (got %s)",
			ErrNoLocator, o.Class, describeLocator(o.Locator))
	}
	return checkField("key", o.Key, MaxIDLen)
}

func validateID(id string) error {
	if id == "" {
		return fmt.Errorf("%w: id is empty (the caller generates one when the producer gives none)", ErrBadID)
	}
	if len(id) > MaxIDLen {
		return fmt.Errorf("%w: id is %d bytes, at most %d allowed", ErrBadID, len(id), MaxIDLen)
	}
	if !printableWord(id) {
		return fmt.Errorf("%w: id %q must be UTF-8 without spaces or control characters", ErrBadID, id)
	}
	return nil
}

// checkField accepts an empty value, or printable UTF-8 without control
// characters of at most limit bytes.
func checkField(name, v string, limit int) error {
	if len(v) > limit {
		return fmt.Errorf("%w: %s is %d bytes, at most %d allowed", ErrBadField, name, len(v), limit)
	}
	if !utf8.ValidString(v) {
		return fmt.Errorf("%w: %s is not valid UTF-8", ErrBadField, name)
	}
	for _, r := range v {
		if unicode.IsControl(r) {
			return fmt.Errorf("%w: %s contains a control character", ErrBadField, name)
		}
	}
	return nil
}

func printableWord(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if unicode.IsControl(r) || unicode.IsSpace(r) {
			return false
		}
	}
	return true
}

func describeLocator(l Locator) string {
	if l.IsZero() {
		return "no locator"
	}
	s := ""
	for _, f := range [...]struct{ name, v string }{
		{"repo", l.Repo}, {"issue", l.Issue}, {"sha", l.SHA}, {"file", l.File},
	} {
		if f.v != "" {
			if s != "" {
				s += " "
			}
			s += f.name + "=" + f.v
		}
	}
	return s
}
