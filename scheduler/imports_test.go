package scheduler

import (
	"testing"

	"github.com/wakewheel/wakewheel/internal/importrules"
)

// The runner declares the store it needs and reads time only through its Clock.
func TestImportRules(t *testing.T) {
	importrules.Check(t, ".", importrules.Rules{NoClock: true, Banned: []string{"github.com/spf13/viper", "github.com/syndtr/goleveldb",
		"github.com/wakewheel/wakewheel/store", "github.com/wakewheel/wakewheel/configs", "github.com/wakewheel/wakewheel/cmd"}})
}
