package wakewheel

import (
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// viperHomes are the only directories whose Go files may import viper:
// configuration is read in configs/ and wired in cmd/; every other package
// receives plain option structs.
var viperHomes = []string{"configs", "cmd"}

// TestViperOnlyInConfigsAndCmd walks the whole module, test files
// included, and fails on any import of viper outside its homes.
func TestViperOnlyInConfigsAndCmd(t *testing.T) {
	fset := token.NewFileSet()
	files := 0
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != "." && (strings.HasPrefix(name, ".") || name == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		files++
		top, _, _ := strings.Cut(filepath.ToSlash(path), "/")
		for _, home := range viperHomes {
			if top == home {
				return nil
			}
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			if p == "github.com/spf13/viper" || strings.HasPrefix(p, "github.com/spf13/viper/") {
				t.Errorf("%s imports %s: only %v may; hand the package a plain option struct instead", path, p, viperHomes)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 50 {
		t.Fatalf("walked only %d Go files: is the test running in the module root?", files)
	}
}
