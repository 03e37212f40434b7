package liveness

import (
	"bufio"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
)

// Beacon authentication. Each host has a secret key that its daemon
// (beacon.key_file) and the monitor (--keys FILE, one "host key" line per
// host) both hold. Every ping carries
//
//	Authorization: WW1 t=<unix ms>,mac=<hex HMAC-SHA256(key, host, signal, t, body)>
//
// The monitor refuses, before it records anything, a ping for a host it has
// no key for, a missing or wrong MAC, a time further than MaxSkew from its
// own clock, and a time not after the last ping it accepted from the host
// (a replay). Only a host's key holder can fake its liveness or send its
// fail; a replay within MaxSkew of a ping the monitor never saw (it was
// restarted meanwhile) is the one thing a listener on the wire can do.

// AuthScheme is the Authorization scheme of a signed ping.
const AuthScheme = "WW1"

// MinKeyLen is the shortest key accepted: 128 bits of a random hex string.
const MinKeyLen = 32

// ErrUnauthenticated marks a ping the monitor refused.
var ErrUnauthenticated = errors.New("liveness: ping not authenticated")

// Keys are the beacon keys the monitor knows, by host.
type Keys map[string][]byte

// ParseKeys reads "host key" lines (blank lines and # comments skipped).
func ParseKeys(r io.Reader) (Keys, error) {
	keys := Keys{}
	sc := bufio.NewScanner(r)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Fields(line)
		if len(f) != 2 {
			return nil, fmt.Errorf("liveness: keys line %d: want \"host key\"", n)
		}
		if err := checkHost(f[0]); err != nil {
			return nil, fmt.Errorf("liveness: keys line %d: %w", n, err)
		}
		if err := CheckKey(f[1]); err != nil {
			return nil, fmt.Errorf("liveness: keys line %d (%s): %w", n, f[0], err)
		}
		if _, dup := keys[f[0]]; dup {
			return nil, fmt.Errorf("liveness: keys line %d: host %s given twice", n, f[0])
		}
		keys[f[0]] = []byte(f[1])
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("liveness: reading keys: %w", err)
	}
	return keys, nil
}

// CheckKey refuses a key that is too short to be a secret, or holds spaces.
func CheckKey(key string) error {
	if len(key) < MinKeyLen {
		return fmt.Errorf("a key of %d characters is too short: use at least %d, e.g. `openssl rand -hex 32`", len(key), MinKeyLen)
	}
	if strings.ContainsAny(key, " \t\r\n") {
		return errors.New("a key holds no spaces")
	}
	return nil
}

// Sign returns the Authorization value of a ping from host sent at t.
func Sign(key []byte, host, signal string, t time.Time, body string) string {
	ms := t.UnixMilli()
	return fmt.Sprintf("%s t=%d,mac=%s", AuthScheme, ms, hex.EncodeToString(mac(key, host, signal, ms, body)))
}

func mac(key []byte, host, signal string, ms int64, body string) []byte {
	h := hmac.New(sha256.New, key)
	fmt.Fprintf(h, "wakewheel beacon v1\n%s\n%s\n%d\n", host, signal, ms)
	io.WriteString(h, body)
	return h.Sum(nil)
}

// verify checks a ping's Authorization value against key at now: it
// returns the ping's time (unix ms) when the MAC is right, the time within
// skew of now, and later than last.
func verify(key []byte, host, signal, auth, body string, now time.Time, skew time.Duration, last int64) (int64, error) {
	rest, ok := strings.CutPrefix(auth, AuthScheme+" ")
	if !ok {
		return 0, fmt.Errorf("%w: no %s Authorization header", ErrUnauthenticated, AuthScheme)
	}
	var ms int64
	var sum []byte
	for _, part := range strings.Split(rest, ",") {
		k, v, _ := strings.Cut(strings.TrimSpace(part), "=")
		switch k {
		case "t":
			ms, _ = strconv.ParseInt(v, 10, 64)
		case "mac":
			sum, _ = hex.DecodeString(v)
		}
	}
	if ms == 0 || len(sum) != sha256.Size {
		return 0, fmt.Errorf("%w: malformed Authorization header", ErrUnauthenticated)
	}
	if !hmac.Equal(sum, mac(key, host, signal, ms, body)) {
		return 0, fmt.Errorf("%w: wrong MAC for host %s", ErrUnauthenticated, host)
	}
	if d := now.Sub(time.UnixMilli(ms)); d > skew || d < -skew {
		return 0, fmt.Errorf("%w: the ping's time is %s from the monitor's clock (at most %s allowed)", ErrUnauthenticated, d.Round(time.Second), skew)
	}
	if ms <= last {
		return 0, fmt.Errorf("%w: a replay (time %d not after the last ping accepted, %d)", ErrUnauthenticated, ms, last)
	}
	return ms, nil
}
