package deadlines

import (
	"testing"

	"github.com/wakewheel/wakewheel/internal/importrules"
)

// The wheel is pure: the standard library only, no I/O, no goroutines, no clock.
func TestImportRules(t *testing.T) {
	importrules.Check(t, ".", importrules.Rules{StdOnly: true, Pure: true})
}
