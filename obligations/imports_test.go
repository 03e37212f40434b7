package obligations

import (
	"testing"

	"github.com/wakewheel/wakewheel/internal/importrules"
)

// The wake doctrine is pure state: the standard library and deadlines only, no I/O, no goroutines, no clock, no locks, no randomness.
func TestImportRules(t *testing.T) {
	importrules.Check(t, ".", importrules.Rules{StdOnly: true, Pure: true, Allowed: []string{"github.com/wakewheel/wakewheel/deadlines"},
		Banned: []string{"log", "unsafe", "plugin", "runtime/cgo", "sync", "math/rand"}})
}
