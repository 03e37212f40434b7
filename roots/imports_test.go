package roots

import (
	"testing"

	"github.com/wakewheel/wakewheel/internal/importrules"
)

// roots turns detections into deadlines and runs commands only through
// package supervise; it never reads configuration or serves the API, and
// takes its time from the Clock it is given.
func TestImportRules(t *testing.T) {
	importrules.Check(t, ".", importrules.Rules{NoClock: true, Banned: []string{
		"github.com/spf13/viper",
		"github.com/spf13/cobra",
		"github.com/syndtr/goleveldb",
		"github.com/fsnotify/fsnotify",
		"github.com/wakewheel/wakewheel/configs",
		"github.com/wakewheel/wakewheel/api",
		"github.com/wakewheel/wakewheel/mcpserver",
		"github.com/wakewheel/wakewheel/cmd",
		"github.com/wakewheel/wakewheel/obligations",
		"github.com/wakewheel/wakewheel/wakes",
		"os/exec",
	}})
}
