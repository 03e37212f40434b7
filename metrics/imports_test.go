package metrics_test

import (
	"testing"

	"github.com/wakewheel/wakewheel/internal/importrules"
)

// Metrics read the engine only through their Source.
func TestImportRules(t *testing.T) {
	importrules.Check(t, ".", importrules.Rules{Banned: []string{"github.com/spf13/viper", "github.com/rs/zerolog", "github.com/syndtr/goleveldb",
		"github.com/wakewheel/wakewheel/store", "github.com/wakewheel/wakewheel/scheduler", "github.com/wakewheel/wakewheel/configs", "os/exec"}})
}
