package importrules

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// recorder collects the errors Check reports.
type recorder struct {
	testing.TB
	errs []string
}

func (r *recorder) Errorf(format string, args ...any) {
	r.errs = append(r.errs, strings.TrimSpace(format))
}
func (r *recorder) Helper() {}

func TestCheckCatchesEachRule(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.go"), []byte(`package a
import (
	"os"
	"time"
	"github.com/spf13/viper"
	"example.com/other"
)
func f() { go f(); _ = time.Now(); _ = os.Args; _ = viper.New; _ = other.X }
`), 0o644)
	os.WriteFile(filepath.Join(dir, "a_test.go"), []byte("package a\nimport \"os\"\nvar _ = os.Args\n"), 0o644)
	rec := &recorder{TB: t}
	Check(rec, dir, Rules{Banned: []string{"github.com/spf13/viper"}, StdOnly: true, Pure: true})
	if len(rec.errs) != 5 { // os, viper, example.com, go statement, time.Now
		t.Fatalf("%d violations reported, want 5: %v", len(rec.errs), rec.errs)
	}
	rec = &recorder{TB: t}
	Check(rec, dir, Rules{Allowed: []string{"example.com/other"}})
	if len(rec.errs) != 0 {
		t.Fatalf("no rules, yet %v", rec.errs)
	}
}
