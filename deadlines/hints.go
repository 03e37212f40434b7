package deadlines

// hints is a small cache in front of the key index of a large wheel: sets
// of four ways picked by the key's hash, each way naming the slab index of
// an entry found lately and 8 more bits of its hash (a hash names its set
// with its low bits), the ones found again in front.
// The index of a large wheel spans megabytes, so a probe for a key touched a
// moment ago misses the caches and the TLB; the hints hold a way for every
// two slots of the index (at most maxHints ways, 1 MiB), so the keys a
// scheduler touches again and again (its roots, lanes and leases) are found
// in a smaller, hotter table, and their index groups are not touched.
// A way for every two slots, not every four or eight: a wheel of 100k to
// 170k pending (an index of 2^18 slots) then holds hints for 65,536 keys
// re-armed in no particular order in about 94% of their lookups, against
// 71% with one for every four and 3 in 8 with one for every eight (a set
// that more keys share than it has ways keeps three of them), for about
// 1.3 bytes more a deadline at 100k pending than with four; from an index
// of 2^19 slots (about 170k pending) on the hints are at maxHints either
// way.
//
// A hint is only a guess: it is checked against the entry (same hash, same
// key, live), so a stale one (freed, reused, pushed out) costs one compare
// and falls back to the index. Nothing is ever removed from the hints. A
// small wheel has none: its index fits the caches.
type hints struct {
	sets []hintSet // by the hash's low bits
	mask uint32    // len(sets) - 1
}

// hintSet is a set's four ways, 16 bytes (four sets to a cache line): a
// way holds the hash's top 8 bits, then the slab index+1 in 24 bits; 0 is
// empty.
type hintSet [hintWays]uint32

const (
	hintWays = 4
	// minHintedSlots is the index size (slots, 5 bytes each) from which a
	// wheel keeps hints: 160 KiB of index, past a core's L1 and most of its
	// L2 once the entries and keys are counted.
	minHintedSlots = 1 << 15
	// hintShare is the index slots per way.
	hintShare = 2
	// maxHints bounds the hints at 1 MiB.
	maxHints = 1 << 18
)

// fit sizes the hints for an index of indexSlots: none below
// minHintedSlots, else half the slots (4 bytes a way against 5 a
// slot), up to maxHints. Growing drops what they held.
func (x *hints) fit(indexSlots int) {
	if indexSlots < minHintedSlots || x.ways() >= maxHints || x.ways() >= indexSlots/hintShare {
		return
	}
	n := min(indexSlots/hintShare, maxHints) / hintWays
	x.sets, x.mask = make([]hintSet, n), uint32(n-1)
}

// ways is the number of ways; 0 when the wheel keeps no hints.
func (x *hints) ways() int { return len(x.sets) * hintWays }

func hintOf(h uint32, i int32) uint32 { return h&0xff000000 | uint32(i+1) }

// get returns the entry that a hint for h names if it holds key, and moves
// that hint to the front of its set; else nilIdx. Like the index, it
// compares a key only with an entry that has all 32 bits of h, once. A key
// of 8 to 16 bytes comes with its first and last 8 bytes, a and b, as
// lookup has read them: it is compared with the entry's inline key in two
// loads of the entry's line, and since a freed entry has a key length of 0
// that compare needs no test of live. Another key is compared by hasKey,
// and a and b are not used.
func (x *hints) get(s *slab, key string, a, b uint64, h uint32) (int32, *entry) {
	set := &x.sets[h&x.mask]
	for j, v := range set {
		if (v^h)&0xff000000 != 0 || v == 0 {
			continue
		}
		i := int32(v&0xffffff) - 1
		if e := s.at(i); e.hash == h {
			if n := len(key); n >= 8 && n <= 16 {
				if !e.holdsShort(n, a, b) {
					return nilIdx, nil
				}
			} else if !e.live() || !s.hasKey(e, key) {
				return nilIdx, nil
			}
			for ; j > 0; j-- { // a copy of at most three ways, without a call
				set[j] = set[j-1]
			}
			set[0] = v
			return i, e
		}
	}
	return nilIdx, nil
}

// put remembers that the entry for hash h is i (x must have ways): in the first empty way of
// its set, else in the last. A key found once takes only the last way, so
// it does not push out the keys found again and again (get moves each to
// the front when it is found), and a round over more keys than a set holds
// keeps all but one of its ways, where putting each at the front would
// push every key out before it came round again.
func (x *hints) put(h uint32, i int32) {
	set := &x.sets[h&x.mask]
	j := 0
	for j < hintWays-1 && set[j] != 0 {
		j++
	}
	set[j] = hintOf(h, i)
}
