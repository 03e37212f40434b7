package filetrust

import (
	"testing"

	"github.com/wakewheel/wakewheel/internal/importrules"
)

func TestImports(t *testing.T) {
	importrules.Check(t, ".", importrules.Rules{StdOnly: true, NoClock: true})
}
