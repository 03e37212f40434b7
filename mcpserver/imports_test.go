package mcpserver_test

import (
	"testing"

	"github.com/wakewheel/wakewheel/internal/importrules"
)

// The MCP adapter holds no state and runs nothing: it only forwards to the daemon's socket.
func TestImportRules(t *testing.T) {
	importrules.Check(t, ".", importrules.Rules{Banned: []string{"github.com/spf13/viper", "github.com/rs/zerolog", "github.com/syndtr/goleveldb",
		"github.com/wakewheel/wakewheel/store", "github.com/wakewheel/wakewheel/scheduler", "github.com/wakewheel/wakewheel/configs", "os/exec"}})
}
