package deadlines

import (
	"errors"
	"math/rand/v2"
	"testing"
	"time"
)

// A hint is a guess checked against the entry: one left behind by a
// cancelled key, or naming an entry since reused by another key of the
// same hash, must not find anything.
func TestHintsAreChecked(t *testing.T) {
	s := slab{free: nilIdx}
	var x hints
	x.fit(minHintedSlots)
	i := s.alloc()
	s.put(i, "a", 7)
	x.put(7, i)
	if j, _ := x.get(&s, "a", 0, 0, 7); j != i {
		t.Fatalf("get(a) = %d, want %d", j, i)
	}
	s.put(i, "b", 7) // reused by another key of the same hash
	if j, _ := x.get(&s, "a", 0, 0, 7); j != nilIdx {
		t.Fatalf("get(a) after reuse = %d, want none", j)
	}
	s.release(i, s.at(i))
	if j, _ := x.get(&s, "b", 0, 0, 7); j != nilIdx {
		t.Fatalf("get(b) after release = %d, want none", j)
	}
}

// Keys that share a hint set push each other out; each is still found
// (through the index), and a cancelled one is not.
func TestWheelThroughStaleHints(t *testing.T) {
	start := time.Unix(1_750_000_000, 0)
	w := NewWheel(time.Millisecond, start)
	keys := makeKeys("k", 200_000) // more keys than hints
	for i, k := range keys {
		w.Push(k, "burst", start.Add(time.Duration(i+1)*time.Millisecond), nil)
	}
	for i, k := range keys {
		if i%3 == 0 {
			w.Cancel(k)
		}
	}
	for i, k := range keys[:5000] { // reuse the freed entries
		w.Push(k+"/again", "burst", start.Add(time.Duration(i+1)*time.Second), nil)
	}
	for i, k := range keys {
		_, ok := w.Get(k)
		if ok != (i%3 != 0) {
			t.Fatalf("Get(%s) pending %v, want %v", k, ok, i%3 != 0)
		}
	}
	checkInvariants(t, w)
}

// forceHints gives w hints of the given number of sets (a power of two),
// which a wheel too small to need hints does not have, so the model tests
// run through hints that are pushed out and go stale all the time.
func forceHints(w *Wheel, sets int) {
	w.hints.sets, w.hints.mask = make([]hintSet, sets), uint32(sets-1)
}

// A wheel at MaxPending refuses a new key with ErrFull (instead of the
// slab's panic) and still moves or cancels the keys it holds. The count is
// faked: 16.7M real deadlines would take a gigabyte.
func TestApplyRefusesANewKeyWhenFull(t *testing.T) {
	now := time.Unix(1_750_000_000, 0)
	w := NewWheel(time.Millisecond, now)
	w.Push("held", "burst", now.Add(time.Hour), nil)
	live := w.slab.live
	w.slab.live = MaxPending
	defer func() { w.slab.live = live }()
	_, err := w.Apply(now, Mutation{Op: OpPush, Key: "new", Kind: "burst", At: now.Add(time.Hour)})
	if !errors.Is(err, ErrFull) {
		t.Fatalf("push of a new key to a full wheel: %v, want ErrFull", err)
	}
	if a, err := w.Apply(now, Mutation{Op: OpPush, Key: "held", Kind: "burst", At: now.Add(time.Minute)}); err != nil || !a.Changed {
		t.Fatalf("pulling in a held key of a full wheel: %+v, %v", a, err)
	}
	if a, err := w.Apply(now, Mutation{Op: OpCancel, Key: "held"}); err != nil || !a.Changed {
		t.Fatalf("cancelling a held key of a full wheel: %+v, %v", a, err)
	}
}

// A round over more keys than a set holds keeps all but one of them found
// through the hints (putting each new one in front would push every key out
// before it came round again), and a key found again moves to the front, so
// a key seen once does not push it out.
func TestHintsKeepARound(t *testing.T) {
	s := slab{free: nilIdx}
	var x hints
	x.fit(minHintedSlots)
	keys := []string{"a", "b", "c", "d", "e"} // one set: the same low hash bits
	idx := make([]int32, len(keys))
	for n, k := range keys {
		idx[n] = s.alloc()
		s.put(idx[n], k, uint32(n+1)<<24)
	}
	found := 0
	for round := range 4 {
		for n, k := range keys {
			h := s.at(idx[n]).hash
			if i, _ := getHint(&x, &s, k, h); i == idx[n] {
				if round > 0 {
					found++
				}
				continue
			}
			x.put(h, idx[n])
		}
	}
	if want := 3 * (hintWays - 1); found < want {
		t.Fatalf("%d of 15 lookups in rounds 2 to 4 found through the hints, want at least %d", found, want)
	}
}

// getHint is hints.get with the words of a key of 8 to 16 bytes read as
// lookup reads them.
func getHint(x *hints, s *slab, key string, h uint32) (int32, *entry) {
	var a, b uint64
	if n := len(key); n >= 8 && n <= 16 {
		a, b = load64(key), load64(key[n-8:])
	}
	return x.get(s, key, a, b, h)
}

// The hints are sized for a working set: with 100k deadlines pending (an
// index of 2^18 slots), a round over 65,536 other keys re-armed in turn,
// in no particular order, finds most of them in the hints, without a probe
// of the index (a way for every two index slots: about 94%; with one for
// every four it was 71%, with one for every eight 3 in 8).
func TestHintsHoldMostOfARoundOverManyKeys(t *testing.T) {
	start := time.Unix(1_750_000_000, 0)
	w := NewWheel(time.Millisecond, start)
	for i, k := range makeKeys("pending", 100_000) {
		w.Push(k, "pending", start.Add(30*24*time.Hour+time.Duration(i)*time.Microsecond), nil)
	}
	keys := makeKeys("burst", 1<<16)
	for _, k := range keys {
		w.Extend(k, "burst", start, time.Hour, 1000*time.Hour)
	}
	if got := w.index.groups() * groupSize; got != 1<<18 {
		t.Fatalf("index of %d slots, want 2^18 (the sizes this test is about changed)", got)
	}
	// In an order of their own: keys re-armed in the order they were made
	// are found next to the one before (afterRecent), not in the hints.
	rng := rand.New(rand.NewPCG(1, 2))
	rng.Shuffle(len(keys), func(i, j int) { keys[i], keys[j] = keys[j], keys[i] })
	hinted := 0
	for round := range 3 {
		for _, k := range keys {
			a, b := load64(k), load64(k[len(k)-8:])
			if i, _ := w.hints.get(&w.slab, k, a, b, w.keyHash.words(a, b, len(k))); i != nilIdx && round > 0 {
				hinted++
			}
			w.Extend(k, "burst", start.Add(time.Second), time.Hour, 1000*time.Hour)
		}
	}
	rate := float64(hinted) / float64(2*len(keys))
	t.Logf("%.2f of the re-arms of rounds 2 and 3 found their key in the hints", rate)
	if rate < 0.85 {
		t.Fatalf("%.2f of the re-arms after the first round found their key in the hints, want >= 0.85", rate)
	}
	checkInvariants(t, w)
}
