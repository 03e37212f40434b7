package store

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/syndtr/goleveldb/leveldb/util"
)

// flipStore writes acknowledged (synced) records: the first half lands in a
// compacted table, the second half stays in the journal. It returns them.
func flipStore(t *testing.T, dir string) map[string]string {
	t.Helper()
	want := map[string]string{}
	put := func(db *DB, i int) {
		k, v := fmt.Sprintf("k%04d", i), fmt.Sprintf("value %d %s", i, strings.Repeat("x", 40+i%50))
		if err := db.Put("t", k, []byte(v), true); err != nil {
			t.Fatal(err)
		}
		want[k] = v
	}
	db, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 300 {
		put(db, i)
	}
	if err := db.ldb.CompactRange(util.Range{}); err != nil {
		t.Fatal(err)
	}
	for i := 300; i < 400; i++ {
		put(db, i)
	}
	if err := db.Abandon(); err != nil {
		t.Fatal(err)
	}
	return want
}

// readAll returns every record of namespace t in dir.
func readAll(dir string) (map[string]string, error) {
	db, err := Open(dir, Options{})
	if err != nil {
		return nil, err
	}
	got := map[string]string{}
	err = db.Scan("t", "", func(k string, v []byte) error { got[k] = string(v); return nil })
	return got, errors.Join(err, db.Close())
}

// spans are the byte ranges of each flip class in the store's files.
func spans(t *testing.T, dir string) map[string][2]int64 {
	t.Helper()
	out := map[string][2]int64{}
	one := func(pattern string) (string, []byte) {
		names, _ := filepath.Glob(filepath.Join(dir, pattern))
		if len(names) != 1 {
			t.Fatalf("%s: %d files", pattern, len(names))
		}
		b, err := os.ReadFile(names[0])
		if err != nil {
			t.Fatal(err)
		}
		return filepath.Base(names[0]), b
	}
	_, j := one("*.log")
	n := int64(len(j))
	out["journal head"] = [2]int64{0, n / 10}
	out["journal middle"] = [2]int64{n * 4 / 10, n * 6 / 10}
	out["journal tail"] = [2]int64{n - n/20, n}
	_, tb := one("*.ldb")
	idx, ok := tableIndex(tb)
	if !ok || len(idx) < 2 {
		t.Fatalf("table index: %v, %d blocks", ok, len(idx))
	}
	out["table data block"] = [2]int64{int64(idx[0].h.off), int64(idx[len(idx)-1].h.off + idx[len(idx)-1].h.n)}
	f := tb[len(tb)-footerLen:]
	_, m := readHandle(f)
	ih, _ := readHandle(f[m:])
	out["table index"] = [2]int64{int64(ih.off), int64(ih.off + ih.n + blockTrailerLen)}
	_, mf := one("MANIFEST-*")
	out["MANIFEST"] = [2]int64{0, int64(len(mf))}
	return out
}

func flipAt(t *testing.T, dir, pattern string, pos int64, mask byte) {
	t.Helper()
	names, _ := filepath.Glob(filepath.Join(dir, pattern))
	b, err := os.ReadFile(names[0])
	if err != nil {
		t.Fatal(err)
	}
	b[pos] ^= mask
	if err := os.WriteFile(names[0], b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestSingleByteFlips: for each class of position, a flipped byte either
// leaves every acknowledged record readable or makes Open refuse the store
// as corrupt; never a store that opens with records missing or wrong. A
// salvage then always gives a store that opens, whose records are the
// acknowledged values.
func TestSingleByteFlips(t *testing.T) {
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 1))
	base := filepath.Join(t.TempDir(), "base")
	want := flipStore(t, base)
	files := map[string]string{"journal head": "*.log", "journal middle": "*.log", "journal tail": "*.log",
		"table data block": "*.ldb", "table index": "*.ldb", "MANIFEST": "MANIFEST-*"}
	for class, span := range spans(t, base) {
		t.Run(class, func(t *testing.T) {
			refused, intact := 0, 0
			for i := range 4 {
				dir := filepath.Join(t.TempDir(), fmt.Sprint(i))
				if err := os.CopyFS(dir, os.DirFS(base)); err != nil {
					t.Fatal(err)
				}
				pos := span[0] + rng.Int64N(span[1]-span[0])
				flipAt(t, dir, files[class], pos, byte(1+rng.IntN(255)))
				got, err := readAll(dir)
				switch {
				case errors.Is(err, ErrCorrupt):
					refused++
				case err != nil:
					t.Fatalf("flip at %d: %v", pos, err)
				default:
					intact++
					checkSubset(t, got, want, true)
				}
				if err := salvageRebuild(dir); err != nil {
					t.Fatalf("flip at %d: salvage: %v", pos, err)
				}
				got, err = readAll(dir)
				if err != nil {
					t.Fatalf("flip at %d: after salvage: %v", pos, err)
				}
				checkSubset(t, got, want, false)
			}
			t.Logf("%s: %d refused, %d harmless", class, refused, intact)
		})
	}
}

// TestTruncatedJournal: a journal cut at any point that loses an
// acknowledged write is refused, even when the cut falls exactly on a record
// boundary (the sync witness knows the last acknowledged batch).
func TestTruncatedJournal(t *testing.T) {
	base := filepath.Join(t.TempDir(), "base")
	want := flipStore(t, base)
	names, _ := filepath.Glob(filepath.Join(base, "*.log"))
	size := fileSize(t, names[0])
	for _, cut := range []int64{1, 7, 57, 100, 130, 1000, 5000} {
		dir := filepath.Join(t.TempDir(), fmt.Sprint(cut))
		if err := os.CopyFS(dir, os.DirFS(base)); err != nil {
			t.Fatal(err)
		}
		if err := os.Truncate(filepath.Join(dir, filepath.Base(names[0])), size-cut); err != nil {
			t.Fatal(err)
		}
		_, err := readAll(dir)
		wantCorrupt(t, err, dir)
		if err := salvageRebuild(dir); err != nil {
			t.Fatal(err)
		}
		got, err := readAll(dir)
		if err != nil {
			t.Fatal(err)
		}
		checkSubset(t, got, want, false)
		if len(got) == len(want) {
			t.Errorf("cut %d: nothing lost?", cut)
		}
	}
}

// TestTornTailOpens: a journal torn in a write that was never acknowledged
// (after the last synced batch) opens, and says what it dropped.
func TestTornTailOpens(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "store")
	want := flipStore(t, dir)
	db, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Put("u", "unsynced", []byte(strings.Repeat("u", 500)), false); err != nil {
		t.Fatal(err)
	}
	if err := db.Abandon(); err != nil {
		t.Fatal(err)
	}
	names, _ := filepath.Glob(filepath.Join(dir, "*.log"))
	if err := os.Truncate(names[len(names)-1], fileSize(t, names[len(names)-1])-100); err != nil {
		t.Fatal(err)
	}
	db, err = Open(dir, Options{})
	if err != nil {
		t.Fatalf("a torn unacknowledged tail: %v", err)
	}
	if notes := db.OpenNotes(); len(notes) != 1 || !strings.Contains(notes[0], "torn journal tail") {
		t.Errorf("notes %q", notes)
	}
	mustClose(t, db)
	got, err := readAll(dir)
	if err != nil {
		t.Fatal(err)
	}
	checkSubset(t, got, want, true)
}

func fileSize(t *testing.T, name string) int64 {
	t.Helper()
	st, err := os.Stat(name)
	if err != nil {
		t.Fatal(err)
	}
	return st.Size()
}

// checkSubset: every record got has its acknowledged value; with all, every
// acknowledged record is there.
func checkSubset(t *testing.T, got, want map[string]string, all bool) {
	t.Helper()
	for k, v := range got {
		if want[k] != v {
			t.Fatalf("record %s = %.20q, want %.20q", k, v, want[k])
		}
	}
	if all && len(got) != len(want) {
		t.Fatalf("the store opened with %d of %d acknowledged records", len(got), len(want))
	}
}
