package deadlines

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"
	"unsafe"
)

// Load holds what Reset one by one holds, duplicates included, and fires
// the same deadlines in the same order: for keys in a store's order
// (ascending: the index built in hash order, at the end or as it goes), in
// random order, and ascending for a while and then not (the index completed
// at the first key out of order, then kept one insert at a time); and so
// does a Loader told to expect none, the right number, a tenth of it or ten
// times it (as a store's estimate comes, with every batch), its index at
// the size a load of that many makes.
func TestLoadMatchesResetOneByOne(t *testing.T) {
	start := time.Unix(1_700_000_000, 0)
	rng := rand.New(rand.NewPCG(7, 8))
	deadline := func(i int, key string) Deadline {
		d := Deadline{Key: key, Kind: fmt.Sprintf("kind%d", i%3),
			At: start.Add(time.Duration(rng.Int64N(int64(48*time.Hour))) - time.Hour)}
		if i%5 == 0 {
			d.Since = start
			d.Payload = []byte(key)
		}
		return d
	}
	var ascending, random, thenNot []Deadline
	for i := range 20_000 {
		ascending = append(ascending, deadline(i, fmt.Sprintf("k%06d", i)))
		random = append(random, deadline(i, fmt.Sprintf("k%d", rng.IntN(15_000)))) // about a quarter repeat
		key := fmt.Sprintf("k%06d", i)
		if i >= 15_000 {
			key = fmt.Sprintf("k%06d", rng.IntN(20_000)) // repeats and keys not seen yet
		}
		thenNot = append(thenNot, deadline(i, key))
	}
	for name, ds := range map[string][]Deadline{"ascending": ascending, "random": random, "ascending then not": thenNot} {
		t.Run(name, func(t *testing.T) {
			checkLoadMatchesReset(t, start, ds, Load(time.Millisecond, start, slices.Values(ds)))
			for _, expect := range []int{len(ds), len(ds) / 10, 10 * len(ds)} {
				l := NewLoader(time.Millisecond, start)
				for i, d := range ds {
					if i%1000 == 0 {
						l.Expect(expect)
					}
					l.Add(d)
				}
				loaded := l.Wheel()
				checkLoadMatchesReset(t, start, ds, loaded)
				if fit := Load(time.Millisecond, start, slices.Values(ds)); loaded.index.groups() != fit.index.groups() && name == "ascending" {
					t.Errorf("expecting %d: an index of %d groups, a load without an estimate makes %d", expect, loaded.index.groups(), fit.index.groups())
				}
			}
		})
	}
}

func checkLoadMatchesReset(t *testing.T, start time.Time, ds []Deadline, loaded *Wheel) {
	t.Helper()
	reset := NewWheel(time.Millisecond, start)
	for _, d := range ds {
		reset.Reset(d)
	}
	checkInvariants(t, loaded)
	if loaded.Len() != reset.Len() {
		t.Fatalf("Load holds %d deadlines, Reset %d", loaded.Len(), reset.Len())
	}
	for d := range reset.All() {
		got, ok := loaded.Get(d.Key)
		if !ok || !got.At.Equal(d.At) || !got.Since.Equal(d.Since) || got.Kind != d.Kind || string(got.Payload) != string(d.Payload) {
			t.Fatalf("%s: Load has %+v (%t), Reset %+v", d.Key, got, ok, d)
		}
	}
	for k, n := range reset.ByKind() {
		if got := kindCount(loaded, k); got != n {
			t.Fatalf("kind %s: Load counts %d, Reset %d", k, got, n)
		}
	}
	end := start.Add(48 * time.Hour)
	a, b := loaded.Advance(end, nil), reset.Advance(end, nil)
	if len(a) != len(b) {
		t.Fatalf("fired %d and %d", len(a), len(b))
	}
	for i := range a {
		if a[i].Key != b[i].Key || !a[i].At.Equal(b[i].At) {
			t.Fatalf("fire %d: %s at %s, want %s at %s", i, a[i].Key, a[i].At, b[i].Key, b[i].At)
		}
	}
	// the loaded wheel keeps working as a wheel
	loaded.Push("after", "k", end.Add(time.Second), nil)
	if next, ok := loaded.Next(); !ok || next.After(end.Add(time.Second)) {
		t.Fatalf("Next after Load and a push: %s %t", next, ok)
	}
}

func kindCount(w *Wheel, kind string) int {
	for k, n := range w.ByKind() {
		if k == kind {
			return n
		}
	}
	return 0
}

// A Loader keeps nothing of a deadline's key: a store hands each key as a
// view of its read buffer, which it overwrites with the next records. Keys
// the entries hold and long ones (kept in the slab's side table) both
// survive their buffer, in and out of key order.
func TestLoaderCopiesTheKeys(t *testing.T) {
	start := time.Unix(1_700_000_000, 0)
	var keys []string
	for i := range 3000 {
		k := fmt.Sprintf("reminder/r%05d", i)
		if i%3 == 0 {
			k = fmt.Sprintf("burst/%s%05d", strings.Repeat("deep/", 1+i%20), i)
		}
		keys = append(keys, k)
	}
	for _, order := range []string{"ascending", "shuffled"} {
		if order == "shuffled" {
			rand.New(rand.NewPCG(1, 2)).Shuffle(len(keys), func(i, j int) { keys[i], keys[j] = keys[j], keys[i] })
		} else {
			slices.Sort(keys)
		}
		l := NewLoader(time.Millisecond, start)
		buf := make([]byte, 0, 256)
		for i, k := range keys {
			buf = append(buf[:0], k...)
			l.Add(Deadline{Key: unsafe.String(&buf[0], len(buf)), Kind: "reminder", At: start.Add(time.Duration(i) * time.Millisecond)})
			for j := range buf {
				buf[j] = '#' // the store's next record
			}
		}
		w := l.Wheel()
		for i, k := range keys {
			d, ok := w.Get(k)
			if !ok || !d.At.Equal(start.Add(time.Duration(i)*time.Millisecond)) {
				t.Fatalf("%s: %s not loaded as given (%v %v)", order, k, d.At, ok)
			}
		}
		n := 0
		for d := range w.All() {
			if strings.Contains(d.Key, "#") {
				t.Fatalf("%s: a key loaded as %q, the bytes of the buffer it came in", order, d.Key)
			}
			n++
		}
		if n != len(keys) {
			t.Fatalf("%s: %d loaded, want %d", order, n, len(keys))
		}
		checkInvariants(t, w)
	}
}
