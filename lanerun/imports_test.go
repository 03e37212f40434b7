package lanerun

import (
	"testing"

	"github.com/wakewheel/wakewheel/internal/importrules"
)

// The last metre takes its settings as values and never reaches up to the API or the CLI.
func TestImportRules(t *testing.T) {
	importrules.Check(t, ".", importrules.Rules{NoClock: true, Banned: []string{"github.com/spf13/viper",
		"github.com/wakewheel/wakewheel/configs", "github.com/wakewheel/wakewheel/api", "github.com/wakewheel/wakewheel/cmd"}})
}
