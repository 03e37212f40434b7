package wakes

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestImportsAndClock fails when the package's non-test code imports
// viper, configs or cmd (options arrive as plain structs), or reads the
// wall clock instead of its Clock (time.Now, time.Since, time.Until).
func TestImportsAndClock(t *testing.T) {
	banned := []string{"github.com/spf13/viper", "github.com/wakewheel/wakewheel/configs", "github.com/wakewheel/wakewheel/cmd"}
	clockReads := map[string]bool{"Now": true, "Since": true, "Until": true}
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			for _, b := range banned {
				if path == b || strings.HasPrefix(path, b+"/") {
					t.Errorf("%s imports %q", name, path)
				}
			}
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if sel, ok := n.(*ast.SelectorExpr); ok {
				if x, ok := sel.X.(*ast.Ident); ok && x.Name == "time" && clockReads[sel.Sel.Name] {
					t.Errorf("%s: time.%s reads the clock; use the Clock", fset.Position(n.Pos()), sel.Sel.Name)
				}
			}
			return true
		})
	}
}
