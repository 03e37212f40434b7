package fleet

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Names on the broker. The stream and the buckets are shared by the whole
// fleet; each daemon's import consumer is named after its host.
const (
	StreamName    = "WAKEWHEEL_OBLIGATIONS"
	HomesBucket   = "wakewheel_homes"
	BeaconsBucket = "wakewheel_beacons"
	LanesBucket   = "wakewheel_lanes"
	subjectRoot   = "wakewheel.ob"
	beaconRoot    = "wakewheel.beacon"
	probeRoot     = "wakewheel.monitor.probe"
)

// BeaconSubject is the core NATS subject a host's beacon is also published
// on, beside its put in the beacons bucket: plain publish and subscribe,
// with no stream leader in the way, so a bucket leader election does not
// silence the beacons (watch.go).
func BeaconSubject(host string) string { return beaconRoot + "." + Encode(host) }

// ProbeSubject is where a fleet monitor sends the probes that prove its
// own sight; id tells two monitors apart.
func ProbeSubject(id string) string { return probeRoot + "." + Encode(id) }

// errBadToken: a subject token or bucket key that no Encode produced.
var errBadToken = errors.New("fleet: not an encoded name")

// Encode turns a lane or host name into one subject token that is also a
// valid KV key: letters, digits and '-' stay, every other byte becomes
// '_' and two hex digits. A '.' can therefore never split a subject, a
// '*' or '>' never becomes a wildcard, and Decode(Encode(s)) == s.
func Encode(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' {
			b.WriteByte(c)
			continue
		}
		fmt.Fprintf(&b, "_%02x", c)
	}
	return b.String()
}

// Decode reverses Encode.
func Decode(tok string) (string, error) {
	var b strings.Builder
	for i := 0; i < len(tok); i++ {
		c := tok[i]
		if c != '_' {
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-') {
				return "", fmt.Errorf("%w: %q has %q", errBadToken, tok, c)
			}
			b.WriteByte(c)
			continue
		}
		if i+2 >= len(tok) {
			return "", fmt.Errorf("%w: %q ends inside an escape", errBadToken, tok)
		}
		v, err := strconv.ParseUint(tok[i+1:i+3], 16, 8)
		if err != nil {
			return "", fmt.Errorf("%w: %q: bad escape %q", errBadToken, tok, tok[i:i+3])
		}
		b.WriteByte(byte(v))
		i += 2
	}
	return b.String(), nil
}

// Subject is where an obligation for lane, homed on home and posted on
// origin, is published: wakewheel.ob.<home>.<lane>.<origin>. The home
// leads so that each home's import consumer filters on its own prefix.
func Subject(home, lane, origin string) string {
	return subjectRoot + "." + Encode(home) + "." + Encode(lane) + "." + Encode(origin)
}

// HomeFilter is the filter subject of home's import consumer.
func HomeFilter(home string) string { return subjectRoot + "." + Encode(home) + ".>" }

// StreamSubjects are the subjects the obligations stream captures.
func StreamSubjects() []string { return []string{subjectRoot + ".>"} }

// ParseSubject splits a subject made by Subject.
func ParseSubject(subj string) (home, lane, origin string, err error) {
	parts := strings.Split(subj, ".")
	if len(parts) != 5 || parts[0]+"."+parts[1] != subjectRoot {
		return "", "", "", fmt.Errorf("%w: subject %q is not %s.<home>.<lane>.<origin>", errBadToken, subj, subjectRoot)
	}
	var errs [3]error
	home, errs[0] = Decode(parts[2])
	lane, errs[1] = Decode(parts[3])
	origin, errs[2] = Decode(parts[4])
	return home, lane, origin, errors.Join(errs[:]...)
}

// MsgID is the broker's de-duplication id of an obligation: ids are unique
// within a lane, so the lane is part of it. The broker's window only
// absorbs quick re-sends; the home's id index is the guarantee.
func MsgID(lane, id string) string { return Encode(lane) + ":" + id }
