package api

import (
	"testing"

	"github.com/wakewheel/wakewheel/internal/importrules"
)

// The socket API serves what the daemon hands it: no configuration, no
// store of its own, never the binary.
func TestImportRules(t *testing.T) {
	importrules.Check(t, ".", importrules.Rules{Banned: []string{"github.com/spf13/viper", "github.com/syndtr/goleveldb",
		"github.com/wakewheel/wakewheel/configs", "github.com/wakewheel/wakewheel/store", "github.com/wakewheel/wakewheel/cmd"}})
}
