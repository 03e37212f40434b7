package fleet

import (
	"testing"

	"github.com/wakewheel/wakewheel/internal/importrules"
)

// The fleet takes its options as values and its time from its Clock, and
// is the client side only: the daemon links it.
func TestImportRules(t *testing.T) {
	importrules.Check(t, ".", importrules.Rules{NoClock: true, Banned: []string{"github.com/spf13/viper",
		"github.com/wakewheel/wakewheel/configs", "github.com/wakewheel/wakewheel/cmd",
		"github.com/nats-io/nats-server", "github.com/wakewheel/wakewheel/fleet/broker"}})
}
