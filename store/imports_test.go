package store

import (
	"testing"

	"github.com/wakewheel/wakewheel/internal/importrules"
)

// The store implements interfaces the scheduler declares: it never imports the scheduler, cmd or configuration.
func TestImportRules(t *testing.T) {
	importrules.Check(t, ".", importrules.Rules{Banned: []string{"github.com/wakewheel/wakewheel/scheduler", "github.com/wakewheel/wakewheel/cmd", "github.com/wakewheel/wakewheel/configs", "github.com/spf13/viper"}})
}
