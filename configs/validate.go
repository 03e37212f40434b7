package configs

import (
	"errors"
	"fmt"
	"net"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/wakewheel/wakewheel/deadlines"
	"github.com/wakewheel/wakewheel/internal/netrule"
)

// Sentinels wrapped by the errors Load, Validate and Watch return; match
// them with errors.Is.
var (
	// ErrInvalid: a value does not parse or breaks a rule.
	ErrInvalid = errors.New("config: invalid value")
	// ErrUnknownKey: a config file holds a key that is not registered.
	ErrUnknownKey = errors.New("config: unknown key")
	// ErrFile: a config file cannot be found, read or parsed.
	ErrFile = errors.New("config: unusable config file")
)

// KeyError rejects one key. It wraps ErrInvalid or ErrUnknownKey.
type KeyError struct {
	Key     string
	Value   string // the value as it was given; empty for an unknown key
	Origin  string // "flag --engine.tick", "env WAKEWHEEL_ENGINE_TICK", "file <path>", "default"; empty when not known
	Problem string // what is wrong, e.g. "must be between 100µs and 1s"
	Err     error  // ErrInvalid or ErrUnknownKey
}

// Error reads, for example:
//
//	config: engine.tick = "5s" (from env WAKEWHEEL_ENGINE_TICK): must be between 100µs and 1s
//	config: unknown key "engine.tik" in file /etc/wakewheel.yaml (did you mean engine.tick?)
func (e *KeyError) Error() string {
	if errors.Is(e.Err, ErrUnknownKey) {
		msg := fmt.Sprintf("config: unknown key %q in %s", e.Key, e.Origin)
		if e.Problem != "" {
			msg += " (" + e.Problem + ")"
		}
		return msg
	}
	var origin string
	switch e.Origin {
	case "":
	case sourceDefault:
		origin = " (default)"
	default:
		origin = " (from " + e.Origin + ")"
	}
	return fmt.Sprintf("config: %s = %q%s: %s", e.Key, e.Value, origin, e.Problem)
}

func (e *KeyError) Unwrap() error { return e.Err }

// Validate checks every value against its registered range and the rules
// between keys. It returns every problem, joined and sorted by key, or nil.
// Load validates already; Validate is for a Config built or changed in code.
func (c Config) Validate() error {
	return joinSorted(c.check(nil, nil))
}

// check applies every rule to c. prov tells where each value came from (nil
// for a Config built in code); keys in skip were rejected while parsing and
// are not checked again, nor are the rules that read them.
func (c *Config) check(prov provenance, skip map[string]bool) []error {
	var errs []error
	report := func(key, problem string) {
		value, origin := prov.describe(c, key)
		errs = append(errs, &KeyError{Key: key, Value: value, Origin: origin, Problem: problem, Err: ErrInvalid})
	}
	for _, s := range registry {
		if skip[s.Key] {
			continue
		}
		if problem := s.problem(c); problem != "" {
			report(s.Key, problem)
		}
	}
	for _, r := range rules {
		if skip[r.key] || slices.ContainsFunc(r.deps, func(k string) bool { return skip[k] }) {
			continue
		}
		if problem := r.check(c); problem != "" {
			report(r.key, problem)
		}
	}
	return errs
}

// problem checks the setting's value on its own: range, vocabulary,
// absolute path, and its extra rule if it has one.
func (s Setting) problem(c *Config) string {
	switch p := s.field(c).(type) {
	case *time.Duration:
		if lo, hi, ok := s.bounds(); ok && (int64(*p) < lo || int64(*p) > hi) {
			return "must be between " + s.Min + " and " + s.Max
		}
	case *int:
		if lo, hi, ok := s.bounds(); ok && (int64(*p) < lo || int64(*p) > hi) {
			return "must be between " + s.Min + " and " + s.Max
		}
	case *string:
		if len(s.Enum) > 0 && !slices.Contains(s.Enum, *p) {
			return "must be one of " + strings.Join(s.Enum, ", ")
		}
		switch {
		case s.Kind != KindPath || filepath.IsAbs(*p) || (*p == "" && s.optional()):
		case s.optional():
			return "must be empty or an absolute path"
		default:
			return "must be an absolute path"
		}
	}
	if s.check != nil {
		return s.check(c)
	}
	return ""
}

// optional reports whether a path setting may be empty (no file): its
// default is empty.
func (s Setting) optional() bool { return s.Kind == KindPath && s.Default == "" && s.derive == nil }

// Allowed describes the values the setting accepts, including the rules
// that tie it to other keys: "1s..24h; >= detect.burst_silence".
func (s Setting) Allowed() string {
	var parts []string
	switch {
	case s.Min != "" || s.Max != "":
		parts = append(parts, s.Min+".."+s.Max)
	case len(s.Enum) > 0:
		parts = append(parts, strings.Join(s.Enum, ", "))
	case s.Kind == KindPath && s.optional():
		parts = append(parts, "empty or an absolute path")
	case s.Kind == KindPath:
		parts = append(parts, "absolute path")
	case s.Kind == KindBool:
		parts = append(parts, "true, false")
	}
	if s.rule != "" {
		parts = append(parts, s.rule)
	}
	for _, r := range rules {
		if r.key == s.Key {
			parts = append(parts, r.doc)
		}
	}
	return strings.Join(parts, "; ")
}

// rule is a check that reads more than one key. It is reported on key.
type rule struct {
	key   string
	deps  []string
	doc   string
	check func(*Config) string
}

// rules are the rules across keys: the daemon's, then the fleet's.
var rules = slices.Concat(daemonRules, fleetRules)

var daemonRules = []rule{
	notBelow("engine.retry_cap", "engine.retry_base"),
	notAbove("engine.timer_slack", "engine.tick"),
	windowCap("detect.burst_cap", "detect.burst_silence"),
	windowCap("detect.reconcile_cap", "detect.reconcile_quiet"),
	notAbove("obligations.human.cadence", "obligations.human.slo"),
	notAbove("obligations.peer.cadence", "obligations.peer.slo"),
	notAbove("obligations.digest.cadence", "obligations.digest.slo"),
	notAbove("obligations.alert.cadence", "obligations.alert.slo"),
	{
		key:   "metrics.listen",
		deps:  []string{"metrics.allow_remote"},
		doc:   "empty, or host:port on loopback unless metrics.allow_remote",
		check: checkMetricsListen,
	},
}

// notBelow requires the duration at key to be >= the one at other.
func notBelow(key, other string) rule {
	return rule{key: key, deps: []string{other}, doc: ">= " + other,
		check: func(c *Config) string {
			if limit := durationAt(c, other); durationAt(c, key) < limit {
				return "must be >= " + other + " (" + formatDuration(limit) + ")"
			}
			return ""
		}}
}

// windowCap requires the cap at key to be at least the window at window:
// the deadlines rule of a sliding window (deadlines.CheckWindow).
func windowCap(key, window string) rule {
	return rule{key: key, deps: []string{window}, doc: ">= " + window,
		check: func(c *Config) string {
			w := durationAt(c, window)
			if w > 0 && deadlines.CheckWindow(w, durationAt(c, key)) != nil {
				return "must be >= " + window + " (" + formatDuration(w) + ")"
			}
			return ""
		}}
}

// notAbove requires the duration at key to be <= the one at other.
func notAbove(key, other string) rule {
	return rule{key: key, deps: []string{other}, doc: "<= " + other,
		check: func(c *Config) string {
			if limit := durationAt(c, other); durationAt(c, key) > limit {
				return "must be <= " + other + " (" + formatDuration(limit) + ")"
			}
			return ""
		}}
}

func durationAt(c *Config, key string) time.Duration {
	s, ok := lookupSetting(key)
	if !ok {
		panic("configs: rule names unregistered key " + key)
	}
	return *s.field(c).(*time.Duration)
}

func checkMetricsListen(c *Config) string {
	addr := c.Metrics.Listen
	if addr == "" {
		return ""
	}
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "not a host:port"
	}
	if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
		return "port must be a number between 1 and 65535"
	}
	if !c.Metrics.AllowRemote && !netrule.Loopback(host) {
		return "must be a loopback host:port (localhost, 127.0.0.1, [::1]) unless metrics.allow_remote is true"
	}
	return ""
}

// joinSorted joins errs sorted by key (errors without a key first), so the
// same mistakes always read the same way.
func joinSorted(errs []error) error {
	slices.SortStableFunc(errs, func(a, b error) int {
		return strings.Compare(errorKey(a), errorKey(b))
	})
	return errors.Join(errs...)
}

func errorKey(err error) string {
	var ke *KeyError
	if errors.As(err, &ke) {
		return ke.Key
	}
	return ""
}
