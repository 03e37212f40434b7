package metrics_test

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestImports fails when the package gains a dependency its doc.go rules
// out: it reads the engine only through its Source.
func TestImports(t *testing.T) {
	banned := []string{"github.com/spf13/viper", "github.com/rs/zerolog", "github.com/syndtr/goleveldb", "github.com/wakewheel/wakewheel/store", "github.com/wakewheel/wakewheel/scheduler", "github.com/wakewheel/wakewheel/configs", "os/exec"}
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			for _, b := range banned {
				if p == b || strings.HasPrefix(p, b+"/") {
					t.Errorf("%s imports %s", name, p)
				}
			}
		}
	}
}
