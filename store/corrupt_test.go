package store

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/syndtr/goleveldb/leveldb"
	"github.com/syndtr/goleveldb/leveldb/util"

	"github.com/wakewheel/wakewheel/deadlines"
)

// buildStore writes n deadlines into a new store in dir, all in one table.
func buildStore(t *testing.T, dir string, n int) {
	t.Helper()
	db, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range n {
		db.PutDeadline(dl(fmt.Sprintf("k%05d", i), time.Duration(i)))
	}
	if err := db.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := db.ldb.CompactRange(util.Range{}); err != nil {
		t.Fatal(err)
	}
	mustClose(t, db)
}

// garble flips the bytes of the middle half of the first file in dir whose
// name matches pattern.
func garble(t *testing.T, dir, pattern string) {
	t.Helper()
	names, _ := filepath.Glob(filepath.Join(dir, pattern))
	if len(names) == 0 {
		t.Fatalf("no %s in %s", pattern, dir)
	}
	b, err := os.ReadFile(names[0])
	if err != nil {
		t.Fatal(err)
	}
	for i := len(b) / 4; i < len(b)*3/4; i++ {
		b[i] ^= 0x5a
	}
	if err := os.WriteFile(names[0], b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// openAndLoad opens dir and loads its deadlines, returning the first error.
func openAndLoad(dir string) (int, error) { return openAndLoadWith(dir, Options{}) }

func openAndLoadWith(dir string, opts Options) (int, error) {
	db, err := Open(dir, opts)
	if err != nil {
		return 0, err
	}
	defer db.Close()
	n := 0
	err = db.LoadDeadlines(func(deadlines.Deadline) error { n++; return nil })
	return n, err
}

// salvageRebuild repairs dir the way `wakewheel repair` does, without the
// obligations' lane logic: copy aside, salvage, rebuild.
func salvageRebuild(dir string) error {
	aside := dir + ".damaged"
	os.RemoveAll(aside)
	if err := CopyAside(dir, aside); err != nil {
		return err
	}
	s, err := SalvageDir(aside)
	if err != nil {
		return err
	}
	return Rebuild(dir, s, nil, nil, nil)
}

func wantCorrupt(t *testing.T, err error, dir string) {
	t.Helper()
	if !errors.Is(err, ErrCorrupt) {
		t.Fatalf("error %v does not wrap ErrCorrupt", err)
	}
	if repair := `run "wakewheel repair --store ` + dir + `"`; !strings.Contains(err.Error(), repair) {
		t.Errorf("error %q does not say %s", err, repair)
	}
}

func TestCorruptStoreIsRepaired(t *testing.T) {
	const n = 3000
	for _, c := range []struct {
		file     string
		keepsAll bool // the damage loses no record
	}{
		{"MANIFEST-*", true},
		{"*.ldb", false},
	} {
		t.Run(c.file, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "store")
			buildStore(t, dir, n)
			garble(t, dir, c.file)

			_, err := openAndLoad(dir)
			wantCorrupt(t, err, dir)
			t.Logf("damaged: %v", err)
			// Left to the load, the deadlines' damage is found all the same.
			_, err = openAndLoadWith(dir, Options{LoadChecksDeadlines: true})
			wantCorrupt(t, err, dir)

			if err := salvageRebuild(dir); err != nil {
				t.Fatalf("Repair: %v", err)
			}
			got, err := openAndLoad(dir)
			if err != nil {
				t.Fatalf("after Repair: %v", err)
			}
			t.Logf("after repair: %d of %d deadlines readable", got, n)
			if got == 0 || got > n || (c.keepsAll && got != n) {
				t.Errorf("after repair %d of %d deadlines load", got, n)
			}
		})
	}
}

// TestDamagedJournalRefused: a journal damaged in the middle is refused as
// corrupt (goleveldb alone would drop the damaged records silently), and a
// salvage keeps the records outside the damage.
func TestDamagedJournalRefused(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "store")
	buildStore(t, dir, 100)
	db, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 100 {
		db.PutDeadline(dl(fmt.Sprintf("journal/%03d", i), 0))
	}
	mustClose(t, db)
	garble(t, dir, "*.log")
	_, err = openAndLoad(dir)
	wantCorrupt(t, err, dir)
	if err := salvageRebuild(dir); err != nil {
		t.Fatal(err)
	}
	n, err := openAndLoad(dir)
	if err != nil || n < 100 || n > 200 {
		t.Fatalf("after salvage: %d deadlines, %v", n, err)
	}
	t.Logf("after salvage: %d of 200 deadlines", n)
}

func TestUndecodableRecords(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "store")
	open := func(o Options) (*DB, error) { return Open(dir, o) }
	db := mustOpen(t, open, manual)
	if err := db.PutDeadlineSync(dl("good", 1)); err != nil {
		t.Fatal(err)
	}
	good := appendDeadline(nil, dl("x", 1))
	bad := map[string][]byte{
		"d/truncated":   good[:len(good)-1],
		"d/trailing":    append(good[:len(good):len(good)], 0),
		"d/version-9":   append([]byte{9}, good[1:]...),
		"d/huge-length": append(good[:deadlineFixedLen:deadlineFixedLen], 0xff, 0xff, 0xff, 0xff, 0x0f),
		"d/empty":       {},
	}
	for k, v := range bad {
		if err := db.ldb.Put([]byte(k), v, nil); err != nil {
			t.Fatal(err)
		}
		err := db.LoadDeadlines(func(deadlines.Deadline) error { return nil })
		wantCorrupt(t, err, dir)
		if !strings.Contains(err.Error(), fmt.Sprintf("%q", k)) {
			t.Errorf("error %q does not name the key %q", err, k)
		}
		_, err = db.VisitDeadlinePage("", "", 10, func([]byte, []byte, time.Time, time.Time) {})
		if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), fmt.Sprintf("%q", k)) {
			t.Errorf("a page over %q: %v, want ErrCorrupt naming the key", k, err)
		}
		if err := db.ldb.Delete([]byte(k), nil); err != nil {
			t.Fatal(err)
		}
	}

	for k, v := range bad {
		if err := db.ldb.Put([]byte(k), v, nil); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.ldb.Put(seqKey(firePrefix, 1), []byte("not json"), nil); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Fires(0, 0); !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), `"f/`) {
		t.Errorf("Fires over a bad record: %v", err)
	}
	mustClose(t, db)

	if err := salvageRebuild(dir); err != nil {
		t.Fatal(err)
	}
	db = mustOpen(t, open, manual)
	wantDeadlines(t, db, dl("good", 1))
	if f, err := db.Fires(0, 0); err != nil || len(f) != 0 {
		t.Errorf("Fires after repair = %v, %v", f, err)
	}
}

func TestSchemaVersion(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "store")
	mustClose(t, mustOpen(t, func(o Options) (*DB, error) { return Open(dir, o) }, Options{}))
	setRaw := func(k, v string) {
		t.Helper()
		ldb, err := leveldb.OpenFile(dir, nil)
		if err != nil {
			t.Fatal(err)
		}
		if v == "" {
			err = ldb.Delete([]byte(k), nil)
		} else {
			err = ldb.Put([]byte(k), []byte(v), nil)
		}
		if err := errors.Join(err, ldb.Close()); err != nil {
			t.Fatal(err)
		}
	}

	setRaw(schemaKey, "2")
	_, err := Open(dir, Options{})
	if !errors.Is(err, ErrSchemaTooNew) || !strings.Contains(err.Error(), "schema version 2") {
		t.Errorf("Open of a version-2 store: %v", err)
	}
	if err := salvageRebuild(dir); !errors.Is(err, ErrSchemaTooNew) {
		t.Errorf("Repair of a version-2 store: %v", err)
	}

	setRaw(schemaKey, "")
	setRaw("n/roots/r", "x")
	_, err = Open(dir, Options{})
	wantCorrupt(t, err, dir)
	if err := salvageRebuild(dir); err != nil {
		t.Fatal(err)
	}
	db := mustOpen(t, func(o Options) (*DB, error) { return Open(dir, o) }, Options{})
	if v, _ := mustGet(t, db, "roots", "r"); v != "x" {
		t.Errorf("record after repair = %q", v)
	}
}

// FuzzDecodeDeadline: no input makes the decoder panic, and whatever it
// accepts survives another encode and decode unchanged.
func FuzzDecodeDeadline(f *testing.F) {
	for _, d := range []deadlines.Deadline{
		dl("a", 1),
		{Key: "b", Kind: "k", At: t0, Since: t0, Payload: []byte("p")},
		{Key: "c"},
	} {
		v := appendDeadline(nil, d)
		f.Add(v)
		f.Add(v[:len(v)-1])
	}
	f.Add([]byte{1, 0, 0})
	f.Fuzz(func(t *testing.T, v []byte) {
		var dec deadlineDecoder
		d, err := dec.decode([]byte("d/key"), v)
		kind, at, since, lerr := decodeListed([]byte("d/key"), v) // a listing's decode: the same checks
		if (lerr == nil) != (err == nil) || (err == nil && (string(kind) != d.Kind || !at.Equal(d.At) || !since.Equal(d.Since))) {
			t.Fatalf("decodeListed(%x) = %q %v %v, %v; decode = %+v, %v", v, kind, at, since, lerr, d, err)
		}
		if err != nil {
			if !errors.Is(err, errBadRecord) {
				t.Fatalf("decode error %v is not a bad-record error", err)
			}
			return
		}
		again, err := dec.decode([]byte("d/key"), appendDeadline(nil, d))
		if err != nil || !sameDeadline(again, d) {
			t.Fatalf("decode(%x) = %+v does not round-trip: %+v, %v", v, d, again, err)
		}
	})
}

// With LoadChecksDeadlines, Open skips the deadline records and the load
// finds their damage: it fails with the same ErrCorrupt, naming the repair.
func TestLoadChecksDeadlines(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "store")
	buildStore(t, dir, 3000)
	garble(t, dir, "*.ldb")
	db, err := Open(dir, Options{LoadChecksDeadlines: true})
	if err != nil {
		t.Fatalf("Open with the deadlines left to the load: %v (the damage is in deadline blocks only)", err)
	}
	defer db.Close()
	err = db.LoadDeadlines(func(deadlines.Deadline) error { return nil })
	wantCorrupt(t, err, dir)
}
