package deadlines

import (
	"fmt"
	"strings"
	"time"
	"unicode/utf8"
)

// MaxKeyLen bounds a deadline key (bytes). Keys name things ("burst/<root>"),
// and a root path is at most PATH_MAX.
const MaxKeyLen = 4096

// CheckKey checks that key can name a deadline: 1..MaxKeyLen bytes of
// UTF-8 without control characters (it is logged, listed and stored).
func CheckKey(key string) error {
	if key == "" || len(key) > MaxKeyLen || !utf8.ValidString(key) {
		return fmt.Errorf("%w: %q (want 1..%d bytes of UTF-8)", ErrBadKey, truncate(key), MaxKeyLen)
	}
	if hasControl(key) {
		return fmt.Errorf("%w: %q contains a control character", ErrBadKey, truncate(key))
	}
	return nil
}

// CheckName checks that a name given by a caller (what names it: "lease
// name", "reminder name", "lane", a root's path) may stand as a segment of
// a deadline key and of a socket API path: 1..maxLen bytes of UTF-8,
// without control characters, and not "." or ".." (a cleaned path would
// turn those into another route). The error says what is wrong in words a
// caller can act on; the caller wraps it with its own sentinel.
func CheckName(what, name string, maxLen int) error {
	switch {
	case name == "" || len(name) > maxLen:
		return fmt.Errorf("%s %q: want 1..%d bytes", what, truncate(name), maxLen)
	case name == "." || name == "..":
		return fmt.Errorf("%s %q is not a name", what, name)
	case !utf8.ValidString(name):
		return fmt.Errorf("%s %q is not UTF-8", what, truncate(name))
	case hasControl(name):
		return fmt.Errorf("%s %q contains a control character", what, truncate(name))
	}
	return nil
}

// CheckWindow checks a sliding window: a positive window, and a cap at
// least the window (a cap shorter than the window would make every extend
// a push to Since+cap).
func CheckWindow(window, cap time.Duration) error {
	if window <= 0 {
		return fmt.Errorf("%w: window %s must be positive", ErrBadWindow, window)
	}
	if cap < window {
		return fmt.Errorf("%w: cap %s must be at least the window %s", ErrBadWindow, cap, window)
	}
	return nil
}

// CapOf is the cap a sliding window really has: never shorter than its
// window (the rule CheckWindow enforces on a mutation, applied to settings
// that are merged from several places, such as a root's own window over the
// configured cap).
func CapOf(window, cap time.Duration) time.Duration { return max(cap, window) }

func hasControl(s string) bool {
	return strings.ContainsFunc(s, func(r rune) bool { return r < 0x20 || r == 0x7f })
}

func truncate(s string) string {
	if len(s) > 64 {
		return s[:64] + "…"
	}
	return s
}
