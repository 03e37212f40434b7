package liveness

import (
	"testing"

	"github.com/wakewheel/wakewheel/internal/importrules"
)

// Liveness never touches obligations or roots, takes its options as values
// and its time from the runner.
func TestImportRules(t *testing.T) {
	importrules.Check(t, ".", importrules.Rules{NoClock: true, Banned: []string{
		"github.com/spf13/viper",
		"github.com/wakewheel/wakewheel/configs",
		"github.com/wakewheel/wakewheel/cmd",
		"github.com/wakewheel/wakewheel/obligations",
		"github.com/wakewheel/wakewheel/wakes",
		"github.com/wakewheel/wakewheel/roots",
		"github.com/wakewheel/wakewheel/api",
		"os/exec",
	}})
}
