package configs

// Where a value came from; a file source reads "file <path>".
const (
	sourceFlag    = "flag"
	sourceEnv     = "env"
	sourceDefault = "default"
	sourceFile    = "file"
)

// Entry is the final value of one key and the layer that set it.
type Entry struct {
	Key    string
	Value  string // canonical text: "5m" for five minutes, a cleaned absolute path
	Source string // "flag", "env", "file <path>" or "default"
}

// Origin names the exact place the value came from, for messages:
// "flag --engine.tick", "env WAKEWHEEL_ENGINE_TICK", "file <path>" or
// "default".
func (e Entry) Origin() string {
	s, ok := lookupSetting(e.Key)
	if !ok {
		return e.Source
	}
	switch e.Source {
	case sourceFlag:
		return "flag --" + s.Flag()
	case sourceEnv:
		return "env " + s.Env()
	}
	return e.Source
}

// Effective is what Load resolved: every registered key with its final
// value and source, in the order of the registry. It is what
// `wakewheel config show` prints.
type Effective struct {
	entries []Entry
	file    string // the config file read, if any
}

// File is the config file the configuration was read from ("" if none),
// whether or not it sets any registered key (it may hold only tables).
func (e *Effective) File() string {
	if e == nil {
		return ""
	}
	return e.file
}

// Entries returns every key's entry, in the order of the registry.
func (e *Effective) Entries() []Entry {
	if e == nil {
		return nil
	}
	return append([]Entry(nil), e.entries...)
}

// Lookup returns the entry of one key.
func (e *Effective) Lookup(key string) (Entry, bool) {
	if e == nil {
		return Entry{}, false
	}
	for _, en := range e.entries {
		if en.Key == key {
			return en, true
		}
	}
	return Entry{}, false
}

func (e *Effective) add(en Entry) { e.entries = append(e.entries, en) }

// provenance remembers, per key, the text as it was given and where it came
// from, so errors quote the user's own spelling ("5000ms", not "5s").
type provenance map[string]given

type given struct {
	raw    string
	origin string
}

// describe returns the value and origin to quote for key; without
// provenance (a Config built in code) it formats the value and leaves the
// origin empty.
func (p provenance) describe(c *Config, key string) (value, origin string) {
	if g, ok := p[key]; ok {
		return g.raw, g.origin
	}
	if s, ok := lookupSetting(key); ok {
		return s.format(c), ""
	}
	return "", ""
}
