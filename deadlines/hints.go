package deadlines

// hints is a small cache in front of the key index: for a set picked by
// the key's hash, the hashes and slab indices of the two entries found there
// last (two ways, the most recent first). The index of a large wheel spans
// megabytes, so a probe for a key touched a moment ago misses the caches and
// the TLB; the hints span at most maxHints*8 bytes, so the keys a scheduler
// touches again and again (its roots, lanes and leases) are found without
// touching the index.
//
// A hint is only a guess: it is checked against the entry (same hash, same
// key, live), so a stale one (freed, reused, pushed out) costs one compare
// and falls back to the index. Nothing is ever removed from the hints.
type hints struct {
	ways []uint64 // by set, two ways: hash<<32 | slab index+1; 0 is empty
	mask uint32   // sets - 1
}

// maxHints bounds the hints at 16,384 ways, 128 KiB.
const maxHints = 1 << 14

// fit grows the hints to about a quarter of the index's slots (at most
// maxHints) when they are smaller, dropping what they held.
func (x *hints) fit(indexSlots int) {
	if len(x.ways) >= maxHints || len(x.ways) >= indexSlots/4 {
		return
	}
	n := max(len(x.ways), 64)
	for n < indexSlots/4 && n < maxHints {
		n *= 2
	}
	x.ways, x.mask = make([]uint64, n), uint32(n/2-1)
}

// get returns the entry that a hint for h names if it holds key; else
// nilIdx.
func (x *hints) get(s *slab, key string, h uint32) (int32, *entry) {
	if len(x.ways) == 0 {
		return nilIdx, nil
	}
	set := x.ways[2*(h&x.mask):][:2]
	for _, v := range set {
		if uint32(v>>32) != h || uint32(v) == 0 {
			continue
		}
		i := int32(uint32(v)) - 1
		if e := s.at(i); e.hash == h && e.key == key && e.live() {
			return i, e
		}
	}
	return nilIdx, nil
}

// put remembers that the entry for hash h is i, as its set's most recent.
func (x *hints) put(h uint32, i int32) {
	if len(x.ways) != 0 {
		set := x.ways[2*(h&x.mask):][:2]
		v := uint64(h)<<32 | uint64(uint32(i)+1)
		if set[0] != v {
			set[1], set[0] = set[0], v
		}
	}
}
