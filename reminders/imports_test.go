package reminders

import (
	"testing"

	"github.com/wakewheel/wakewheel/internal/importrules"
)

func TestImports(t *testing.T) {
	importrules.Check(t, ".", importrules.Rules{Pure: true, StdOnly: true, Allowed: []string{"github.com/wakewheel/wakewheel/obligations", "github.com/wakewheel/wakewheel/deadlines"}})
}
