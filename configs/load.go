package configs

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/pflag"
	"github.com/spf13/viper"
)

// LoadOptions says where Load finds the layers above the defaults.
type LoadOptions struct {
	// File is an explicit config file (.yaml, .yml, .toml or .json); it
	// must exist. When empty, Load looks for config.yaml, config.toml or
	// config.json in $XDG_CONFIG_HOME/wakewheel (else ~/.config/wakewheel);
	// finding none is fine, finding more than one is an error.
	File string
	// Flags, when set, is searched for a flag named after each key
	// (--engine.tick; see AddFlags). Only flags marked Changed count.
	Flags *pflag.FlagSet
	// Env reads an environment variable; nil means os.LookupEnv. It is used
	// for WAKEWHEEL_* and for the XDG_* and HOME variables that locate the
	// config file and derive the default paths. A variable that is set but
	// empty counts as set.
	Env func(string) (string, bool)
}

// fileTypes are the config file extensions Load reads.
var fileTypes = []string{"yaml", "yml", "toml", "json"}

// searched are the names Load looks for when no File is given, in order.
var searched = []string{"config.yaml", "config.toml", "config.json"}

// Load resolves every registered key from, highest first: a changed flag,
// the WAKEWHEEL_* environment, the config file, the default. It then
// validates the result. A config file, or a program it names, that another
// user owns or can write to is refused (ErrUntrusted; see trust.go).
//
// Each call reads the file with a fresh viper instance: viper parses the
// file formats and folds key case. The four layers are resolved here, in
// one loop, because viper reads the process environment directly and does
// not say which layer a value came from, and both are needed: tests inject
// the environment, and Effective reports each key's source.
//
// On error the Config is zero and the error joins every problem, sorted by
// key. The Effective is still returned when the file could be read, so
// `config show` can print what was resolved next to what was rejected.
func Load(opts LoadOptions) (Config, *Effective, error) {
	env := opts.lookup()
	path, err := opts.configFile(env)
	if err != nil {
		return Config{}, nil, err
	}
	var v *viper.Viper
	var errs []error
	if path != "" {
		if err := checkFileTrust(path); err != nil {
			return Config{}, nil, err
		}
		v = viper.New()
		if err := readFile(v, path); err != nil {
			return Config{}, nil, err
		}
		errs = append(errs, unknownKeys(v, path)...)
	}

	var c Config
	eff := &Effective{file: path}
	prov := provenance{}
	rejected := map[string]bool{}
	for _, s := range registry {
		raw, source, err := resolve(s, &c, opts.Flags, env, v, path)
		if errors.Is(err, errDependent) {
			rejected[s.Key] = true
			continue
		}
		en := Entry{Key: s.Key, Value: raw, Source: source}
		prov[s.Key] = given{raw: raw, origin: en.Origin()}
		if err == nil {
			err = s.parse(&c, raw, env)
		}
		if err != nil {
			rejected[s.Key] = true
			errs = append(errs, &KeyError{Key: s.Key, Value: raw, Origin: en.Origin(), Problem: err.Error(), Err: ErrInvalid})
			eff.add(en)
			continue
		}
		en.Value = s.format(&c)
		eff.add(en)
	}
	errs = append(errs, c.check(prov, rejected)...)
	if v != nil {
		errs = append(errs, loadSections(v, path, env, &c)...)
		errs = append(errs, checkNamedFiles(&c, path, env)...)
	}
	if len(errs) > 0 {
		return Config{}, eff, joinSorted(errs)
	}
	return c, eff, nil
}

// resolve returns the text that sets s and its source: a changed flag, then
// the environment, then the file, then the (possibly derived) default.
// Derived defaults read c, which holds the keys resolved before s.
func resolve(s Setting, c *Config, flags *pflag.FlagSet, env lookup, v *viper.Viper, path string) (raw, source string, err error) {
	if flags != nil {
		if f := flags.Lookup(s.Flag()); f != nil && f.Changed {
			return f.Value.String(), sourceFlag, nil
		}
	}
	if text, ok := env(s.Env()); ok {
		return text, sourceEnv, nil
	}
	if v != nil && v.InConfig(s.Key) {
		source = sourceFile + " " + path
		value := v.Get(s.Key)
		text, ok := scalarText(value)
		if !ok {
			return fmt.Sprint(value), source, fmt.Errorf("not a %s (found a table or a list)", s.Kind)
		}
		return text, source, nil
	}
	if s.derive != nil {
		text, err := s.derive(env, c)
		return text, sourceDefault, err
	}
	return s.Default, sourceDefault, nil
}

// scalarText renders a value decoded from a file as the text a flag or an
// environment variable would hold, so all layers parse alike. A number
// stays a number: 500 is not a duration, "500ms" is.
func scalarText(value any) (string, bool) {
	switch x := value.(type) {
	case string:
		return x, true
	case bool:
		return strconv.FormatBool(x), true
	case int:
		return strconv.Itoa(x), true
	case int64:
		return strconv.FormatInt(x, 10), true
	case uint64:
		return strconv.FormatUint(x, 10), true
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64), true
	case map[string]any, []any:
		return "", false
	}
	return fmt.Sprint(value), true
}

func (o LoadOptions) lookup() lookup {
	if o.Env != nil {
		return o.Env
	}
	return os.LookupEnv
}

// configFile returns the file to read: File if set (it must exist), else the
// one file found in the search directory, else "".
func (o LoadOptions) configFile(env lookup) (string, error) {
	if o.File != "" {
		path := expandHome(o.File, env)
		if _, err := os.Stat(path); err != nil {
			return "", fmt.Errorf("%w %s: %w", ErrFile, path, err)
		}
		return path, nil
	}
	dir, ok := searchDir(env)
	if !ok {
		return "", nil
	}
	var found []string
	for _, name := range searched {
		path := filepath.Join(dir, name)
		_, err := os.Stat(path)
		switch {
		case err == nil:
			found = append(found, path)
		case !errors.Is(err, fs.ErrNotExist):
			return "", fmt.Errorf("%w %s: %w", ErrFile, path, err)
		}
	}
	switch len(found) {
	case 0:
		return "", nil
	case 1:
		return found[0], nil
	}
	return "", fmt.Errorf("%w: found %s; keep one", ErrFile, strings.Join(found, " and "))
}

// searchDir is $XDG_CONFIG_HOME/wakewheel, else ~/.config/wakewheel.
func searchDir(env lookup) (string, bool) {
	if dir, ok := xdgDir(env, "XDG_CONFIG_HOME"); ok {
		return filepath.Join(dir, "wakewheel"), true
	}
	if home, ok := env("HOME"); ok && filepath.IsAbs(home) {
		return filepath.Join(home, ".config", "wakewheel"), true
	}
	return "", false
}

func readFile(v *viper.Viper, path string) error {
	ext := strings.TrimPrefix(filepath.Ext(path), ".")
	if !slices.Contains(fileTypes, ext) {
		return fmt.Errorf("%w %s: unsupported extension %q (use .yaml, .yml, .toml or .json)", ErrFile, path, ext)
	}
	v.SetConfigFile(path)
	v.SetConfigType(ext)
	if err := v.ReadInConfig(); err != nil {
		return fmt.Errorf("%w %s: %w", ErrFile, path, err)
	}
	return nil
}

// unknownKeys reports every key of the file that is not registered: a typo
// would otherwise be ignored silently.
func unknownKeys(v *viper.Viper, path string) []error {
	var errs []error
	for _, key := range v.AllKeys() {
		if _, ok := lookupSetting(key); ok || underSetting(key) || inSection(key) {
			continue
		}
		errs = append(errs, &KeyError{Key: key, Origin: sourceFile + " " + path, Problem: hint(key), Err: ErrUnknownKey})
	}
	return errs
}

// underSetting reports whether key lies inside a registered key, as
// engine.tick.ms does when engine.tick holds a table: that key's own error
// ("not a duration") already covers it.
func underSetting(key string) bool {
	return slices.ContainsFunc(registry, func(s Setting) bool { return strings.HasPrefix(key, s.Key+".") })
}

// hint says what an unknown key was probably meant to be.
func hint(key string) string {
	best, bestDist := "", 4 // suggest only keys within three edits
	for _, s := range registry {
		if strings.HasPrefix(s.Key, key+".") {
			return key + " is a section, not a value"
		}
		if d := editDistance(key, s.Key); d < bestDist {
			best, bestDist = s.Key, d
		}
	}
	if best == "" {
		return ""
	}
	return "did you mean " + best + "?"
}

// editDistance is the Levenshtein distance between a and b, in bytes.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
