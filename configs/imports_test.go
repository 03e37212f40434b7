package configs

import (
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestOnlyConfigsAndCmdImportViper walks the module and fails if a package
// outside configs/ and cmd/ imports viper: the others take plain structs.
func TestOnlyConfigsAndCmdImportViper(t *testing.T) {
	root := ".."
	fset := token.NewFileSet()
	walked := 0 // Go files looked at, tests included
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if d.IsDir() {
			name := d.Name()
			if rel == "configs" || rel == "cmd" || name == "testdata" || name == "vendor" ||
				(rel != "." && (strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_"))) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		walked++
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			return nil // a file mid-edit elsewhere is not this test's concern
		}
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			if p == "github.com/spf13/viper" || strings.HasPrefix(p, "github.com/spf13/viper/") {
				t.Errorf("%s imports %s; only configs/ and cmd/ may", rel, p)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if walked < 100 {
		t.Fatalf("walked only %d Go files under %s: the test is not looking at the module", walked, root)
	}
}
