package mcpserver

import (
	"fmt"
	"reflect"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
)

// prop narrows one property of an inferred input schema beyond what a Go
// type says: the allowed words, a numeric range, a length; and its
// description, where the words depend on the tool (see newestProps).
type prop struct {
	enum     []any
	min, max *float64
	maxLen   *int
	desc     string
}

// inputSchema infers the schema of T (descriptions come from the
// `jsonschema` struct tags; fields without omitempty are required) and
// narrows the named properties. Unknown properties stay refused, so a
// misspelt argument is an error the agent sees, not a silent no-op.
func inputSchema[T any](props map[string]prop) *jsonschema.Schema {
	s, err := jsonschema.For[T](nil)
	if err != nil {
		panic(fmt.Sprintf("mcpserver: schema of %T: %v", *new(T), err))
	}
	for name, p := range props {
		ps, ok := s.Properties[name]
		if !ok {
			panic(fmt.Sprintf("mcpserver: schema of %T has no property %q", *new(T), name))
		}
		ps.Enum = p.enum
		ps.Minimum, ps.Maximum = p.min, p.max
		ps.MaxLength = p.maxLen
		if p.desc != "" {
			ps.Description = p.desc
		}
	}
	return s
}

func num(v float64) *float64 { return &v }
func length(n int) *int      { return &n }

// outputSchema is the schema of a tool's answer, T as the daemon writes
// it: durations are strings ("45s"), as in all of the API's JSON.
func outputSchema[T any]() *jsonschema.Schema {
	s, err := jsonschema.For[T](&jsonschema.ForOptions{TypeSchemas: map[reflect.Type]*jsonschema.Schema{
		reflect.TypeFor[time.Duration](): {Type: "string", Description: "a Go duration, e.g. 45s"},
	}})
	if err != nil {
		panic(fmt.Sprintf("mcpserver: output schema of %T: %v", *new(T), err))
	}
	return s
}
