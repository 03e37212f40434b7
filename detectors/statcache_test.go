package detectors

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

func mustScan(t *testing.T, c *StatCache, dirs ...string) FileChanges {
	t.Helper()
	var ch FileChanges
	var err error
	if dirs == nil {
		ch, err = c.Scan()
	} else {
		ch, err = c.ScanDirs(dirs)
	}
	if err != nil {
		t.Fatal(err)
	}
	return ch
}

func wantChanges(t *testing.T, what string, got FileChanges, added, changed, removed []string) {
	t.Helper()
	if !slices.Equal(got.Added, added) || !slices.Equal(got.Changed, changed) || !slices.Equal(got.Removed, removed) {
		t.Fatalf("%s:\n got   +%q ~%q -%q\n want  +%q ~%q -%q", what, got.Added, got.Changed, got.Removed, added, changed, removed)
	}
}

func TestStatCacheScan(t *testing.T) {
	root := t.TempDir()
	writeFile(t, root, "a.txt", "1")
	writeFile(t, root, "dir/b.txt", "1")
	writeFile(t, root, "dir/sub/c.txt", "1")
	writeFile(t, root, "node_modules/x.js", "1")
	writeFile(t, root, "gen/out.txt", "1")
	if err := os.Symlink("a.txt", filepath.Join(root, "link")); err != nil {
		t.Fatal(err)
	}
	c := NewStatCache(root, MustSkipPolicy("gen"))

	wantChanges(t, "inventory", mustScan(t, c), []string{"a.txt", "dir/b.txt", "dir/sub/c.txt", "link"}, nil, nil)
	if c.Len() != 4 {
		t.Fatalf("Len %d", c.Len())
	}
	if ch := mustScan(t, c); !ch.Empty() {
		t.Fatalf("unchanged tree: %+v", ch)
	}

	writeFile(t, root, "a.txt", "22")  // size
	past := time.Now().Add(-time.Hour) // mtime only
	if err := os.Chtimes(filepath.Join(root, "dir/b.txt"), past, past); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(filepath.Join(root, "dir/sub/c.txt"), 0o600); err != nil { // mode
		t.Fatal(err)
	}
	writeFile(t, root, "dir/new.txt", "1")
	writeFile(t, root, "fresh/deep/d.txt", "1")
	writeFile(t, root, "node_modules/y.js", "1")
	if err := os.Remove(filepath.Join(root, "link")); err != nil {
		t.Fatal(err)
	}
	wantChanges(t, "edits", mustScan(t, c),
		[]string{"dir/new.txt", "fresh/deep/d.txt"},
		[]string{"a.txt", "dir/b.txt", "dir/sub/c.txt"},
		[]string{"link"})

	// Same size, same mtime, new inode: a replaced file.
	info, _ := os.Stat(filepath.Join(root, "a.txt"))
	tmp := filepath.Join(root, "a.tmp")
	writeFile(t, root, "a.tmp", "33")
	if err := os.Chtimes(tmp, info.ModTime(), info.ModTime()); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, filepath.Join(root, "a.txt")); err != nil {
		t.Fatal(err)
	}
	wantChanges(t, "replaced by rename", mustScan(t, c), nil, []string{"a.txt"}, nil)

	if err := os.RemoveAll(filepath.Join(root, "dir")); err != nil {
		t.Fatal(err)
	}
	wantChanges(t, "dir removed", mustScan(t, c), nil, nil, []string{"dir/b.txt", "dir/new.txt", "dir/sub/c.txt"})
	if c.Len() != 2 {
		t.Fatalf("Len %d", c.Len())
	}
}

func TestStatCacheScanDirs(t *testing.T) {
	root := t.TempDir()
	genTree(t, root, 300, "v1 ") // d000/e00 .. d000/e02
	c := NewStatCache(root, SkipPolicy{})
	if ch := mustScan(t, c, "d000/e00"); len(ch.Added) != 300 {
		t.Fatalf("ScanDirs before Scan is the inventory: %d added", len(ch.Added))
	}
	writeFile(t, root, "d000/e01/f00100.txt", "changed")
	writeFile(t, root, "d000/e02/f00200.txt", "changed, but its dir is not scanned")
	writeFile(t, root, "d000/e01/new/deeper/n.txt", "x")
	if err := os.Remove(filepath.Join(root, "d000/e01/f00101.txt")); err != nil {
		t.Fatal(err)
	}
	wantChanges(t, "one dir", mustScan(t, c, "d000/e01"),
		[]string{"d000/e01/new/deeper/n.txt"}, []string{"d000/e01/f00100.txt"}, []string{"d000/e01/f00101.txt"})

	// A directory unknown to the cache: its nearest cached ancestor finds it.
	writeFile(t, root, "d000/brand/new/x.txt", "x")
	wantChanges(t, "unknown dir", mustScan(t, c, "d000/brand/new"), []string{"d000/brand/new/x.txt"}, nil, nil)

	// A removed directory, named by its parent (the watcher's Remove event).
	if err := os.RemoveAll(filepath.Join(root, "d000/e01")); err != nil {
		t.Fatal(err)
	}
	ch := mustScan(t, c, "d000", "d000/e01")
	if len(ch.Removed) != 100 || len(ch.Added)+len(ch.Changed) != 0 {
		t.Fatalf("removed dir: %d removed, %+v", len(ch.Removed), ch)
	}
	// The full scan still catches the file ScanDirs was not told about.
	wantChanges(t, "full", mustScan(t, c), nil, []string{"d000/e02/f00200.txt"}, nil)
	if ch := mustScan(t, c, "", "../escape", "d000/e00"); !ch.Empty() {
		t.Fatalf("unchanged: %+v", ch)
	}
}

func TestStatCacheTypeChanges(t *testing.T) {
	root := t.TempDir()
	writeFile(t, root, "x", "file")
	writeFile(t, root, "y/inner", "1")
	c := NewStatCache(root, SkipPolicy{})
	mustScan(t, c)
	if err := os.Remove(filepath.Join(root, "x")); err != nil {
		t.Fatal(err)
	}
	writeFile(t, root, "x/now-a-dir", "1")
	if err := os.RemoveAll(filepath.Join(root, "y")); err != nil {
		t.Fatal(err)
	}
	writeFile(t, root, "y", "now a file")
	wantChanges(t, "swap", mustScan(t, c, ""), []string{"x/now-a-dir", "y"}, nil, []string{"x", "y/inner"})
}
