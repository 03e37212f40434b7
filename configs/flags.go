package configs

import "github.com/spf13/pflag"

// AddFlags registers one flag per setting on fs, named after the key:
// --engine.tick, --detect.burst_silence, --metrics.allow_remote. The usage
// line says what the setting means, then the reason for its default, its
// allowed values and its environment variable; the default shown is the
// registered one.
//
// The flags hold text and do not parse it: Load does, so a bad flag value
// is reported like a bad file or environment value, naming key, value and
// range. Bool flags may be given bare (--metrics.allow_remote). Pass the
// same FlagSet to Load as LoadOptions.Flags; only flags the user set
// (Changed) override the lower layers.
//
// Like any pflag registration, calling AddFlags twice on one FlagSet panics.
func AddFlags(fs *pflag.FlagSet) {
	for _, s := range registry {
		def := s.Default
		if s.Derived() {
			def = "" // described in the usage instead of shown as a value
		}
		usage := s.Means() + "; why the default: " + s.Reason
		if s.Derived() {
			usage += "; default " + s.Default
		}
		if allowed := s.Allowed(); allowed != "" {
			usage += " [" + allowed + "]"
		}
		usage += " (env " + s.Env() + ")"
		f := fs.VarPF(&textValue{text: def, kind: s.Kind}, s.Flag(), "", usage)
		if s.Kind == KindBool {
			f.NoOptDefVal = "true"
		}
	}
}

// textValue is a pflag.Value that keeps the text it is given; its Type
// names the setting's kind for the help output.
type textValue struct {
	text string
	kind Kind
}

func (v *textValue) String() string     { return v.text }
func (v *textValue) Set(s string) error { v.text = s; return nil }
func (v *textValue) Type() string       { return string(v.kind) }
