package store

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/syndtr/goleveldb/leveldb/storage"
	wakewheel "github.com/wakewheel/wakewheel"
	"github.com/wakewheel/wakewheel/deadlines"
	"github.com/wakewheel/wakewheel/internal/yieldtest"
)

// TestDeadlinePageMatchesModel pages through the store after random puts,
// deletes, completions and flushes, and compares every page with a sorted
// model: the written-behind changes and the flushed records merge into one
// key-ordered listing, and the cursor neither skips nor repeats a key.
func TestDeadlinePageMatchesModel(t *testing.T) {
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 0))
	s := storage.NewMemStorage()
	db := mustOpen(t, func(o Options) (*DB, error) { return OpenStorage(s, o) }, manual)
	model := map[string]time.Duration{}
	key := func() string {
		return fmt.Sprintf("%s/%03d", []string{"burst", "lease", "reminder"}[rng.IntN(3)], rng.IntN(300))
	}
	for round := range 40 {
		for range 50 {
			k := key()
			switch r := rng.IntN(10); {
			case r < 6:
				at := time.Duration(rng.IntN(1000)) * time.Second
				db.PutDeadline(dl(k, at))
				model[k] = at
			case r < 8:
				db.DeleteDeadline(k)
				delete(model, k)
			default:
				if _, err := db.Complete(k, false, wakewheel.Fire{Key: k}); err != nil {
					t.Fatal(err)
				}
				delete(model, k)
			}
		}
		if round%3 == 0 {
			if err := db.Flush(); err != nil {
				t.Fatal(err)
			}
		}
		prefix := []string{"", "burst/", "reminder/0", "lease/1", "none/"}[rng.IntN(5)]
		limit := 1 + rng.IntN(40)
		var want []string
		for k := range model {
			if strings.HasPrefix(k, prefix) {
				want = append(want, k)
			}
		}
		slices.Sort(want)
		var got []string
		after := ""
		var reused []deadlines.Deadline // rounds 1 of 3: each page into the last one's slice
		for pages := 0; ; pages++ {
			var page []deadlines.Deadline
			var more bool
			var err error
			switch round % 3 {
			case 0:
				page, more, err = db.DeadlinePage(prefix, after, limit)
			case 1:
				page, more, err = db.AppendDeadlinePage(reused, prefix, after, limit)
				reused = page
			default:
				page, more, err = visitedPage(db, prefix, after, limit)
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(page) > limit || (more && len(page) != limit) {
				t.Fatalf("page of %d (more %v) for limit %d", len(page), more, limit)
			}
			for _, d := range page {
				if !d.At.Equal(t0.Add(model[d.Key])) {
					t.Fatalf("%s at %v, model %v", d.Key, d.At, t0.Add(model[d.Key]))
				}
				got = append(got, d.Key)
			}
			if !more {
				break
			}
			after = page[len(page)-1].Key
		}
		if !slices.Equal(got, want) {
			t.Fatalf("round %d prefix %q limit %d:\n got %v\nwant %v", round, prefix, limit, got, want)
		}
	}
}

// visitedPage is the page VisitDeadlinePage hands out, each deadline
// copied as it comes (its bytes are the store's only during the call).
func visitedPage(db *DB, prefix, after string, limit int) ([]deadlines.Deadline, bool, error) {
	var page []deadlines.Deadline
	more, err := db.VisitDeadlinePage(prefix, after, limit, func(key, kind []byte, at, since time.Time) {
		page = append(page, deadlines.Deadline{Key: string(key), Kind: string(kind), At: at, Since: since})
	})
	return page, more, err
}

// sameListed: a and b list alike (key, kind and times; a listing does
// not read the payload).
func sameListed(a, b deadlines.Deadline) bool {
	return a.Key == b.Key && a.Kind == b.Kind && a.At.Equal(b.At) && a.Since.Equal(b.Since)
}

// TestDeadlinePageCursorOutsidePrefix: a cursor before the prefix starts at
// the prefix; one after it gives an empty page.
func TestDeadlinePageCursorOutsidePrefix(t *testing.T) {
	db := mustOpen(t, func(o Options) (*DB, error) { return OpenStorage(storage.NewMemStorage(), o) }, manual)
	for _, k := range []string{"a/1", "b/1", "b/2", "c/1"} {
		db.PutDeadline(dl(k, time.Second))
	}
	if err := db.Flush(); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		after string
		want  int
	}{{"", 2}, {"a/9", 2}, {"b/1", 1}, {"b/2", 0}, {"z", 0}} {
		page, more, err := db.DeadlinePage("b/", c.after, 10)
		if err != nil || more || len(page) != c.want {
			t.Errorf("after %q: %d deadlines (more %v, err %v), want %d", c.after, len(page), more, err, c.want)
		}
		if visited, more, err := visitedPage(db, "b/", c.after, 10); err != nil || more || !slices.EqualFunc(visited, page, sameListed) {
			t.Errorf("after %q: visited %v (more %v, err %v), want %v", c.after, visited, more, err, page)
		}
	}
}

// AppendDeadlinePage writes the page over what dst held, in dst's own
// array when it has room: a listing reuses one slice page after page.
func TestAppendDeadlinePageReusesItsSlice(t *testing.T) {
	db := mustOpen(t, func(o Options) (*DB, error) { return OpenStorage(storage.NewMemStorage(), o) }, manual)
	for i := range 10 {
		db.PutDeadline(dl(fmt.Sprintf("r/%02d", i), time.Duration(i)*time.Second))
	}
	dst := make([]deadlines.Deadline, 3, 8)
	dst[0] = dl("stale/0", 0)
	page, more, err := db.AppendDeadlinePage(dst, "r/", "r/04", 3)
	if err != nil || !more || len(page) != 3 || &page[0] != &dst[0] {
		t.Fatalf("page %v more %v err %v; in dst's array: %v", page, more, err, len(page) > 0 && &page[0] == &dst[0])
	}
	for i, d := range page {
		if want := fmt.Sprintf("r/%02d", 5+i); d.Key != want {
			t.Errorf("deadline %d is %s, want %s", i, d.Key, want)
		}
	}
	if page, _, _ := db.AppendDeadlinePage(dst, "r/", "", 0); len(page) != 0 {
		t.Errorf("limit 0 gave %d deadlines", len(page))
	}
}

// A long page yields the processor as it reads: with one processor, a
// goroutine that is ready to run runs many times during a page of 10,000
// instead of only after it (the engine's loop, woken by a deadline, must
// not wait for a listing).
func TestDeadlinePageYieldsAsItReads(t *testing.T) {
	db := mustOpen(t, func(o Options) (*DB, error) { return OpenStorage(storage.NewMemStorage(), o) }, manual)
	const n = 10000
	for i := range n {
		db.PutDeadline(dl(fmt.Sprintf("r/%05d", i), time.Second))
	}
	if err := db.Flush(); err != nil {
		t.Fatal(err)
	}
	var page []deadlines.Deadline
	var err error
	during := yieldtest.RunsDuring(func() { page, _, err = db.DeadlinePage("r/", "", n) })
	if err != nil || len(page) != n {
		t.Fatalf("page of %d, err %v", len(page), err)
	}
	if want := int64(n / pageYieldEvery / 2); during < want {
		t.Fatalf("a ready goroutine ran %d times during a page of %d, want at least %d (a yield every %d deadlines)", during, n, want, pageYieldEvery)
	}
}
