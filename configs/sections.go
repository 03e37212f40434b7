package configs

import (
	"encoding/json"
	"fmt"
	"github.com/wakewheel/wakewheel/deadlines"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/spf13/viper"
)

// Root is a repository or directory declared in the config file:
//
//	roots:
//	  - path: ~/src/app
//	    armed: true
//	    ingest: ./scripts/index-files
//	    reconcile: ./scripts/reconcile
//	    skip: [vendor, build]
//	    reconcile_quiet: 2m     # per-root override of detect.reconcile_quiet
//
// Commands are the operator's: only what the config file or the CLI's
// `watch` registers ever runs. The per-root overrides are the detect.*
// windows of the same names, with the same ranges; a zero value means the
// global setting.
type Root struct {
	Path      string
	Armed     bool
	Ingest    string
	Reconcile string
	Skip      []string

	BurstSilence   time.Duration
	BurstCap       time.Duration
	ReconcileQuiet time.Duration
	ReconcileCap   time.Duration
	DrainBudget    int
}

// rootOverrides are the per-root keys and the fields they set.
var rootOverrides = map[string]func(r *Root) any{
	"burst_silence":   func(r *Root) any { return &r.BurstSilence },
	"burst_cap":       func(r *Root) any { return &r.BurstCap },
	"reconcile_quiet": func(r *Root) any { return &r.ReconcileQuiet },
	"reconcile_cap":   func(r *Root) any { return &r.ReconcileCap },
	"drain_budget":    func(r *Root) any { return &r.DrainBudget },
}

// Lane is a lane's operator settings:
//
//	lanes:
//	  reviewer:
//	    wake_hook: notify-send "wakewheel: reviewer has work"
//	    roots: [~/src/app]
//
// A lane subscribed to roots gets a machine digest obligation for every
// detection in them that captured new paths.
type Lane struct {
	WakeHook string
	Roots    []string
	LaneAgent
}

// sections are the top-level keys that hold tables rather than registered
// values.
var sections = []string{"roots", "lanes"}

// inSection reports whether a file key belongs to a table section.
func inSection(key string) bool {
	return slices.ContainsFunc(sections, func(s string) bool { return key == s || strings.HasPrefix(key, s+".") })
}

var laneName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$`)

// loadSections reads the table sections of the file into c.
func loadSections(v *viper.Viper, path string, env lookup, c *Config) []error {
	origin := sourceFile + " " + path
	bad := func(key string, value any, problem string) error {
		return &KeyError{Key: key, Value: showValue(value), Origin: origin, Problem: problem, Err: ErrInvalid}
	}
	var errs []error
	if v.IsSet("roots") {
		list, ok := v.Get("roots").([]any)
		if !ok {
			errs = append(errs, bad("roots", v.Get("roots"), "must be a list of tables with path, armed, ingest, reconcile, skip"))
		}
		seen := map[string]bool{}
		for i, item := range list {
			key := fmt.Sprintf("roots[%d]", i)
			r, err := rootOf(item, env)
			if err != "" {
				errs = append(errs, bad(key, item, err))
				continue
			}
			if seen[r.Path] {
				errs = append(errs, bad(key+".path", r.Path, "declared twice"))
				continue
			}
			seen[r.Path] = true
			c.Roots = append(c.Roots, r)
		}
	}
	if v.IsSet("lanes") {
		table, ok := v.Get("lanes").(map[string]any)
		if !ok {
			errs = append(errs, bad("lanes", v.Get("lanes"), "must be a table of lane names"))
		}
		names, err := fileNames(path, "lanes")
		if err != nil {
			errs = append(errs, bad("lanes", "", err.Error()))
		}
		for name, item := range table {
			if written, ok := names[name]; ok {
				name = written // as the file writes it: viper folded it
			}
			key := "lanes." + name
			if !laneName.MatchString(name) {
				errs = append(errs, bad(key, name, "a lane name is 1..128 of A-Z a-z 0-9 . _ - and starts with a letter or digit"))
				continue
			}
			fields, ok := item.(map[string]any)
			if !ok {
				errs = append(errs, bad(key, item, "must be a table (wake_hook)"))
				continue
			}
			var l Lane
			for f, val := range fields {
				text, isText := val.(string)
				switch {
				case f == "wake_hook" && isText:
					l.WakeHook = strings.TrimSpace(text)
				case f == "wake_hook":
					errs = append(errs, bad(key+".wake_hook", val, "must be a command line (a string)"))
				case f == "roots":
					paths, problem := absPaths(val, env)
					if problem != "" {
						errs = append(errs, bad(key+".roots", val, problem))
					}
					l.Roots = paths
				case isAgentField(f):
					if problem := l.setAgentField(f, val); problem != "" {
						errs = append(errs, bad(key+"."+f, val, problem))
					}
				default:
					errs = append(errs, &KeyError{Key: key + "." + f, Origin: origin, Problem: "a lane has only wake_hook, roots, " + agentFieldNames, Err: ErrUnknownKey})
				}
			}
			if c.Lanes == nil {
				c.Lanes = map[string]Lane{}
			}
			c.Lanes[name] = l
		}
	}
	return errs
}

// rootOf decodes one roots entry, or says what is wrong with it.
func rootOf(item any, env lookup) (Root, string) {
	fields, ok := item.(map[string]any)
	if !ok {
		return Root{}, "must be a table with path, armed, ingest, reconcile, skip"
	}
	var r Root
	for f, val := range fields {
		switch f {
		case "path", "ingest", "reconcile":
			text, ok := val.(string)
			if !ok {
				return r, f + " must be a string"
			}
			switch f {
			case "path":
				r.Path = filepath.Clean(expandHome(strings.TrimSpace(text), env))
			case "ingest":
				r.Ingest = strings.TrimSpace(text)
			default:
				r.Reconcile = strings.TrimSpace(text)
			}
		case "armed":
			b, ok := val.(bool)
			if !ok {
				return r, "armed must be true or false"
			}
			r.Armed = b
		case "skip":
			list, ok := val.([]any)
			if !ok {
				return r, "skip must be a list of directory names or root-relative paths"
			}
			for _, s := range list {
				text, ok := s.(string)
				if !ok || strings.TrimSpace(text) == "" {
					return r, "skip entries must be non-empty strings"
				}
				r.Skip = append(r.Skip, strings.TrimSpace(text))
			}
		default:
			field, ok := rootOverrides[f]
			if !ok {
				return r, fmt.Sprintf("unknown field %q (a root has path, armed, ingest, reconcile, skip, and the overrides %s)", f, overrideNames())
			}
			if problem := setOverride(f, val, field(&r)); problem != "" {
				return r, problem
			}
		}
	}
	if r.BurstCap > 0 && r.BurstSilence > 0 && deadlines.CheckWindow(r.BurstSilence, r.BurstCap) != nil {
		return r, "burst_cap must be at least burst_silence"
	}
	if r.ReconcileCap > 0 && r.ReconcileQuiet > 0 && deadlines.CheckWindow(r.ReconcileQuiet, r.ReconcileCap) != nil {
		return r, "reconcile_cap must be at least reconcile_quiet"
	}
	if r.Path == "" || r.Path == "." {
		return r, "path is required"
	}
	if !filepath.IsAbs(r.Path) {
		return r, fmt.Sprintf("path %q must be absolute (or start with ~/)", r.Path)
	}
	return r, ""
}

// absPaths decodes a list of absolute paths (or ~/ paths), or says what is
// wrong with it.
func absPaths(val any, env lookup) ([]string, string) {
	list, ok := val.([]any)
	if !ok {
		return nil, "must be a list of root paths"
	}
	var out []string
	for _, item := range list {
		text, ok := item.(string)
		if !ok {
			return nil, "must be a list of root paths (strings)"
		}
		p := filepath.Clean(expandHome(strings.TrimSpace(text), env))
		if !filepath.IsAbs(p) {
			return nil, fmt.Sprintf("root %q must be absolute (or start with ~/)", text)
		}
		out = append(out, p)
	}
	return out, ""
}

func overrideNames() string {
	names := make([]string, 0, len(rootOverrides))
	for k := range rootOverrides {
		names = append(names, k)
	}
	slices.Sort(names)
	return strings.Join(names, ", ")
}

// setOverride parses a per-root override with the rules of the detect.*
// setting of the same name, into dst (*time.Duration or *int).
func setOverride(name string, val any, dst any) string {
	s, _ := lookupSetting("detect." + name)
	text, ok := scalarText(val)
	if !ok {
		return name + " must be a value, not a table or a list"
	}
	var c Config
	if err := s.parse(&c, text, func(string) (string, bool) { return "", false }); err != nil {
		return fmt.Sprintf("%s = %q: %v", name, text, err)
	}
	if problem := s.problem(&c); problem != "" {
		return fmt.Sprintf("%s = %q: %s", name, text, problem)
	}
	switch p := dst.(type) {
	case *time.Duration:
		*p = *(s.field(&c).(*time.Duration))
	case *int:
		*p = *(s.field(&c).(*int))
	}
	return ""
}

// showValue is a value of the file as a user wrote it: a table or a list in
// JSON's notation, not Go's (map[drain_budget:0 ...]).
func showValue(v any) string {
	switch v.(type) {
	case map[string]any, []any:
		if b, err := json.Marshal(v); err == nil {
			return string(b)
		}
	}
	return fmt.Sprint(v)
}
