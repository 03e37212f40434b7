package deadlines

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestStaysPure fails when the package's non-test code gains an import from
// outside the standard library or of I/O, reads the clock, or starts a
// goroutine.
func TestStaysPure(t *testing.T) {
	banned := map[string]bool{"os": true, "os/exec": true, "net": true, "io/fs": true, "syscall": true}
	clockReads := map[string]bool{"Now": true, "Since": true, "Until": true}
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	checked := 0
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		checked++
		timeName := ""
		for _, imp := range f.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			first, _, _ := strings.Cut(path, "/")
			switch {
			case strings.Contains(first, "."):
				t.Errorf("%s imports %q, outside the standard library", name, path)
			case banned[path] || strings.HasPrefix(path, "net/"):
				t.Errorf("%s imports %q: the package does no I/O", name, path)
			case path == "time":
				timeName = "time"
				if imp.Name != nil {
					timeName = imp.Name.Name
				}
			}
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.GoStmt:
				t.Errorf("%s: a go statement: the package starts no goroutines", fset.Position(n.Pos()))
			case *ast.SelectorExpr:
				if x, ok := n.X.(*ast.Ident); ok && timeName != "" && x.Name == timeName && clockReads[n.Sel.Name] {
					t.Errorf("%s: time.%s reads the clock; take now as an argument", fset.Position(n.Pos()), n.Sel.Name)
				}
			}
			return true
		})
	}
	if checked == 0 {
		t.Fatal("no source files found")
	}
}
