package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// readOnlyVars are the package-level variables cmd/wakewheel may keep:
// values set once (by the linker, or at declaration) and never written.
var readOnlyVars = map[string]string{
	"version":       "set by -ldflags -X at build time",
	"retimed":       "the re-timing table, read only",
	"realDoctorEnv": "the doctor's view of this machine, read only",
	"minGit":        "a constant the language cannot declare const",
	"gitVersion":    "a compiled regexp, read only",
}

// The daemon is wired in one function (capabilities): no file registers
// itself from init, and no package variable carries state between
// capabilities or between two daemons of one process.
func TestNoInitRegistrationOrPackageState(t *testing.T) {
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
		for _, decl := range f.Decls {
			switch d := decl.(type) {
			case *ast.FuncDecl:
				if d.Recv == nil && d.Name.Name == "init" {
					t.Errorf("%s: func init: wire the capability in capabilities (wiring.go) instead", fset.Position(d.Pos()))
				}
			case *ast.GenDecl:
				if d.Tok != token.VAR {
					continue
				}
				for _, spec := range d.Specs {
					for _, n := range spec.(*ast.ValueSpec).Names {
						if _, ok := readOnlyVars[n.Name]; !ok && n.Name != "_" {
							t.Errorf("%s: package variable %s: keep state in a capability's value, not in the package",
								fset.Position(n.Pos()), n.Name)
						}
					}
				}
			}
		}
	}
	if _, err := os.Stat("wiring.go"); err != nil {
		t.Fatal("the daemon's wiring lives in wiring.go:", err)
	}
}

// Two daemons assembled in one process share nothing: each capability
// list is built from its own daemon, and the reload of each calls the
// reloads of its own capabilities, once each, in order (the roots' reload
// hook used to be appended to a package list at every daemon start).
func TestCapabilitiesAreAssembledPerDaemon(t *testing.T) {
	a, b := capabilities(&daemon{}), capabilities(&daemon{})
	for _, caps := range [][]capability{a, b} {
		var hooks []string
		for _, h := range newReloader(&daemon{}, caps).hooks {
			hooks = append(hooks, h.name)
		}
		if got := strings.Join(hooks, " "); got != "obligations digests roots" {
			t.Errorf("reload hooks %q, want the obligations, digests and roots reloads once each", got)
		}
	}
	if len(a) != len(b) || len(a) == 0 {
		t.Fatalf("%d and %d capabilities", len(a), len(b))
	}
	names := map[string]bool{}
	for _, c := range a {
		if names[c.name] {
			t.Errorf("capability %s twice", c.name)
		}
		names[c.name] = true
	}
	for _, want := range []string{"obligations", "reminders", "digests", "roots", "backup", "reload", "metrics"} {
		if !names[want] {
			t.Errorf("no capability %s in %v", want, names)
		}
	}
}
