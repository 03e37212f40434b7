package deadlines

import "testing"

// TestIndexChurn inserts and deletes keys at random against a map. Hashes
// are drawn from a small set, so groups fill up, probe sequences get long
// and deletes leave tombstones that inserts and rebuilds must handle.
func TestIndexChurn(t *testing.T) {
	r := newRand(t)
	keys := makeKeys("k", 3000)
	for _, distinct := range []uint32{1<<32 - 1, 4096, 64, 3} {
		hashOf := func(k string) uint32 {
			h := uint32(2166136261) // FNV-1a, folded onto a few values
			for i := range len(k) {
				h = (h ^ uint32(k[i])) * 16777619
			}
			return h % distinct * 2654435761
		}
		s := slab{free: nilIdx}
		var x index
		want := map[string]int32{}
		tombstones := 0
		for op := range 40_000 {
			k := keys[r.IntN(len(keys))]
			h := hashOf(k)
			i, e, pos := x.find(&s, k, h)
			if wi, ok := want[k]; ok != (i != nilIdx) || (ok && (wi != i || e != s.at(i))) {
				t.Fatalf("distinct %d, op %d: find(%s) = %d, want %d %v", distinct, op, k, i, wi, ok)
			}
			if i == nilIdx {
				i = s.alloc()
				s.put(i, k, h)
				x.insertAt(&s, i, h, pos)
				want[k] = i
			} else {
				x.deleteAt(pos)
				s.release(i, s.at(i))
				delete(want, k)
			}
			if x.count != len(want) || x.used > x.limit {
				t.Fatalf("distinct %d, op %d: count %d, want %d; used %d of %d", distinct, op, x.count, len(want), x.used, x.limit)
			}
			tombstones = max(tombstones, x.used-x.count)
		}
		n := 0
		x.each(func(i int32) bool {
			if want[s.keyView(s.at(i))] != i {
				t.Fatalf("each yields %d (%s), not in the map", i, s.keyView(s.at(i)))
			}
			n++
			return true
		})
		if n != len(want) {
			t.Fatalf("each yields %d of %d", n, len(want))
		}
		t.Logf("%d distinct hashes: %d keys, %d groups, up to %d tombstones", distinct, n, x.groups(), tombstones)
	}
}

// put makes entry i, a live short-key entry or a new one, hold key with
// hash h, as a test sets up a slab by hand.
func (s *slab) put(i int32, key string, h uint32) {
	e := s.at(i)
	*e = entry{hash: h}
	s.setKey(e, key)
}
