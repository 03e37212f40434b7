package store

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Every file of an on-disk store is 0600: those a store of an older build
// left 0644, and those created later (journals, tables, manifests,
// CURRENT) as the store is written and compacted.
func TestStoreFilesArePrivate(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "store")
	db, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	// as an older build left them
	files, _ := os.ReadDir(dir)
	for _, f := range files {
		os.Chmod(filepath.Join(dir, f.Name()), 0o644)
	}
	db, err = Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	val := []byte(strings.Repeat("x", 4096))
	for i := range 2000 {
		if err := db.Put("test", strings.Repeat("k", 10)+string(rune('a'+i%26))+string(rune(i)), val, false); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.ldb.CompactRange(struct{ Start, Limit []byte }{}); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	files, err = os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	tables := 0
	for _, f := range files {
		fi, err := f.Info()
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasSuffix(f.Name(), ".ldb") {
			tables++
		}
		if fi.Mode().Perm() != 0o600 {
			t.Errorf("%s is mode %04o, want 0600", f.Name(), fi.Mode().Perm())
		}
	}
	if tables == 0 {
		t.Fatal("no table file was written: the test did not exercise table creation")
	}
}
