package detectors

import (
	"testing"

	"github.com/wakewheel/wakewheel/internal/importrules"
)

// Detectors only report events and changed sets: no scheduler, no store, no configuration.
func TestImportRules(t *testing.T) {
	importrules.Check(t, ".", importrules.Rules{Banned: []string{"github.com/spf13/viper", "github.com/spf13/cobra", "github.com/syndtr/goleveldb",
		"github.com/wakewheel/wakewheel/scheduler", "github.com/wakewheel/wakewheel/store", "github.com/wakewheel/wakewheel/configs", "github.com/wakewheel/wakewheel/cmd"}})
}
