package detectors

import (
	"go/parser"
	"go/token"
	"os"
	"strconv"
	"strings"
	"testing"
)

// detectors is an I/O edge: it may use the pure packages (deadlines,
// obligations) but never the runner, the store, configuration or the CLI.
func TestForbiddenImports(t *testing.T) {
	forbidden := []string{
		"github.com/spf13/viper", "github.com/spf13/cobra", "github.com/syndtr/goleveldb",
		"github.com/wakewheel/wakewheel/scheduler", "github.com/wakewheel/wakewheel/store",
		"github.com/wakewheel/wakewheel/configs", "github.com/wakewheel/wakewheel/cmd",
	}
	entries, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		name := e.Name()
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), name, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			for _, bad := range forbidden {
				if p == bad || strings.HasPrefix(p, bad+"/") {
					t.Errorf("%s imports %s", name, p)
				}
			}
		}
	}
}
