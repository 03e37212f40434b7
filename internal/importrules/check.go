package importrules

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// Rules are what a package's non-test files may not do.
type Rules struct {
	// Banned import paths; each also bans its sub-packages.
	Banned []string
	// StdOnly allows only the standard library, plus the paths in Allowed.
	StdOnly bool
	Allowed []string
	// NoClock bans reading the wall clock (time.Now, Since, Until, Sleep,
	// After, Tick, NewTimer, NewTicker, AfterFunc): the package uses the
	// Clock it is given, or takes now as a value.
	NoClock bool
	// Pure is NoClock, and also bans the I/O packages (os, os/exec,
	// net/..., io/fs, syscall) and go statements.
	Pure bool
}

var (
	ioPackages = []string{"os", "net", "io/fs", "syscall"}
	clockReads = map[string]bool{"Now": true, "Since": true, "Until": true, "Sleep": true, "After": true,
		"Tick": true, "NewTimer": true, "NewTicker": true, "AfterFunc": true}
)

// Check applies r to the non-test .go files of dir and reports each
// violation as a test error naming the file and the rule.
func Check(t testing.TB, dir string, r Rules) {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	checked := 0
	for _, path := range files {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		checked++
		name := filepath.Base(path)
		timeName := ""
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			if msg := r.refuse(p); msg != "" {
				t.Errorf("%s imports %q: %s", name, p, msg)
			}
			if p == "time" {
				timeName = "time"
				if imp.Name != nil {
					timeName = imp.Name.Name
				}
			}
		}
		if r.Pure || r.NoClock {
			ast.Inspect(f, func(n ast.Node) bool {
				switch n := n.(type) {
				case *ast.GoStmt:
					if r.Pure {
						t.Errorf("%s: a go statement: the package starts no goroutines", fset.Position(n.Pos()))
					}
				case *ast.SelectorExpr:
					if x, ok := n.X.(*ast.Ident); ok && timeName != "" && x.Name == timeName && clockReads[n.Sel.Name] {
						t.Errorf("%s: time.%s reads the clock; take now as an argument", fset.Position(n.Pos()), n.Sel.Name)
					}
				}
				return true
			})
		}
	}
	if checked == 0 {
		t.Fatalf("no source files in %s", dir)
	}
}

// refuse says why r refuses the import p, or "".
func (r Rules) refuse(p string) string {
	under := func(list []string) bool {
		for _, b := range list {
			if p == b || strings.HasPrefix(p, b+"/") {
				return true
			}
		}
		return false
	}
	first, _, _ := strings.Cut(p, "/")
	switch {
	case under(r.Banned):
		return "banned by the package's doc.go"
	case r.Pure && under(ioPackages):
		return "the package does no I/O"
	case r.StdOnly && strings.Contains(first, ".") && !under(r.Allowed):
		return "only the standard library is allowed"
	}
	return ""
}
