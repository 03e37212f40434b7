package agenthooks

import (
	"testing"

	"github.com/wakewheel/wakewheel/internal/importrules"
)

// The hook protocol takes its time from a Clock and never reads the configuration itself.
func TestImportRules(t *testing.T) {
	importrules.Check(t, ".", importrules.Rules{NoClock: true, Banned: []string{"github.com/spf13/viper",
		"github.com/wakewheel/wakewheel/configs", "github.com/wakewheel/wakewheel/cmd"}})
}
