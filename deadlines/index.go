package deadlines

import (
	"encoding/binary"
	"math/bits"
)

// index maps keys to slab indices: an open-addressing hash table in the
// style of a Swiss table, 4 bytes a slot.
//
// Slots come in groups of 16, one 64-byte cache line each: 16 control bytes,
// one a slot (empty, deleted, or 7 bits of the key's hash), and 16 slab
// indices of 3 bytes (so a wheel holds at most maxEntries deadlines). A
// lookup scans the control bytes of a group at once (SWAR bit tricks on two
// uint64s), reads an entry only for a slot whose 7 hash bits match, and
// stops at the first group with an empty slot. So a key that is absent
// usually costs one group, one cache line, and no entry read; a group never
// straddles two lines (the groups are allocated in multiples of 64 bytes,
// which the allocator aligns to 64).
//
// Invariant: a key lives in its home group or in a group further along its
// probe sequence, and every group before it on that sequence has no empty
// slot. Deleting from a group that has an empty slot therefore frees the
// slot; deleting from a full group leaves a deleted marker (a tombstone),
// which an insert may reuse. Full and deleted slots together stay within 7/8
// of the slots; when an insert would pass that, the table is rebuilt from the
// slab: doubled when more than 3/4 of the limit is live, else at its size to
// drop the tombstones (which leaves a quarter of the limit free, so rebuilds
// cost O(1) amortized per insert). The full 32-bit hash is kept in each
// entry, so a rebuild hashes no key.
type index struct {
	groups []group
	mask   uint32 // len(groups) - 1; len(groups) is a power of two
	shift  uint8  // home group = hash >> shift
	count  int    // full slots
	used   int    // full and deleted slots
	limit  int    // the most slots that may be used
	gen    uint32 // counts the tables made: a position is valid within one
}

// group is 64 bytes: ctrl[j] describes slot j, read eight at a time as a
// little-endian word (word 0 slots 0 to 7, word 1 slots 8 to 15) and
// written one byte at a time; slot j's slab index is the 3 bytes at
// idx[3j:], little-endian.
type group struct {
	ctrl [groupSize]byte
	idx  [3 * groupSize]byte
}

// word is control word w (0 or 1).
func (g *group) word(w int) uint64 { return binary.LittleEndian.Uint64(g.ctrl[(w&1)*8:]) }

const (
	groupSize = 16
	minGroups = 2

	ctrlEmpty   = 0x80
	ctrlDeleted = 0xfe // a full slot holds its hash's low 7 bits, 0x00 to 0x7f

	lsb = 0x0101010101010101
	msb = 0x8080808080808080

	noPos = ^uint32(0)
)

// emptyCtrl is the control bytes of an empty group.
var emptyCtrl = [groupSize]byte{
	ctrlEmpty, ctrlEmpty, ctrlEmpty, ctrlEmpty, ctrlEmpty, ctrlEmpty, ctrlEmpty, ctrlEmpty,
	ctrlEmpty, ctrlEmpty, ctrlEmpty, ctrlEmpty, ctrlEmpty, ctrlEmpty, ctrlEmpty, ctrlEmpty,
}

// matchTag returns the bytes of ctrl equal to tag, as the top bit of each
// byte (with rare false positives, which the key comparison rejects).
func matchTag(ctrl uint64, tag uint8) uint64 {
	v := ctrl ^ lsb*uint64(tag)
	return (v - lsb) &^ v & msb
}

// matchEmpty returns the empty bytes: top bit set, bit 1 clear.
func matchEmpty(ctrl uint64) uint64 { return ctrl &^ (ctrl << 6) & msb }

// matchFree returns the empty and deleted bytes: top bit set.
func matchFree(ctrl uint64) uint64 { return ctrl & msb }

// bitmap packs the top bits of the bytes of m into 8 bits.
func bitmap(m uint64) uint16 { return uint16((m >> 7) * 0x0102040810204080 >> 56) }

// slotsOf gathers a match of both control words into one bit per slot.
func slotsOf(lo, hi uint64) uint16 { return bitmap(lo) | bitmap(hi)<<8 }

func (g *group) matchFull() uint16 { return slotsOf(^g.word(0)&msb, ^g.word(1)&msb) }
func (g *group) hasEmpty() bool    { return matchEmpty(g.word(0))|matchEmpty(g.word(1)) != 0 }

// firstFree is the slot of the group's first free (empty or deleted) slot;
// groupSize if it has none.
func (g *group) firstFree() uint32 {
	if m := matchFree(g.word(0)); m != 0 {
		return byteSlot(0, m)
	}
	if m := matchFree(g.word(1)); m != 0 {
		return byteSlot(1, m)
	}
	return groupSize
}

// byteSlot is the slot of the lowest byte matched in m, a match of control
// word w: a lookup walks the matches of each word as they are, without
// packing them into a bitmap.
func byteSlot(w int, m uint64) uint32 { return uint32(w*8 + bits.TrailingZeros64(m)/8) }

// first is the slot of the lowest match.
func first(match uint16) uint32 { return uint32(bits.TrailingZeros16(match)) }

func (g *group) ctrlAt(j uint32) uint8 { return g.ctrl[j%groupSize] }

func (g *group) setCtrl(j uint32, c uint8) { g.ctrl[j%groupSize] = c }

// slot is the slab index in slot j.
func (g *group) slot(j uint32) int32 {
	b := g.idx[3*j:][:3]
	return int32(uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16)
}

func (g *group) setSlot(j uint32, i int32) {
	b := g.idx[3*j:][:3]
	b[0], b[1], b[2] = byte(i), byte(i>>8), byte(i>>16)
}

// home is h's home group and tag. A table has at least minGroups groups,
// so shift is at most 31 (the mask tells the compiler so: no test for a
// shift past the word).
func (x *index) home(h uint32) (g uint32, tag uint8) { return h >> (x.shift & 31), uint8(h & 0x7f) }

// find returns the slab index and entry of key, and its slot position
// (group*8 + slot). When key is absent it returns nilIdx, a nil entry, and
// the position at which insertAt should put it: the first free slot on its
// probe sequence.
//
// It compares one key at most, almost always: the walk (findHash) stops at
// the first entry with all 32 bits of h, and two keys of one probe
// sequence share those in about one lookup of 2^32/N. The walk calls
// nothing, so its state stays in registers; the comparison, a call, comes
// once after it.
func (x *index) find(s *slab, key string, h uint32) (int32, *entry, uint32) {
	i, e, pos := x.findHash(s, h)
	if i == nilIdx || s.hasKey(e, key) {
		return i, e, pos
	}
	return x.findKey(s, key, h)
}

// findHash returns the first entry on h's probe sequence whose hash is h,
// with its position; or nilIdx, a nil entry and the first free position
// when there is none. Most keys live in their home group (a table is at
// most 7/8 full), and so does most of the answer: that group is looked at
// first, with little to keep in registers, and the walk goes on along the
// probe sequence (findFurther) only when the home group has no empty slot.
func (x *index) findHash(s *slab, h uint32) (int32, *entry, uint32) {
	if len(x.groups) == 0 {
		return nilIdx, nil, noPos
	}
	g, tag := x.home(h)
	grp := &x.groups[g]
	lo, hi := grp.word(0), grp.word(1)
	for m := matchTag(lo, tag); m != 0; m &= m - 1 {
		if i, e := grp.entry(s, byteSlot(0, m)); e.hash == h {
			return i, e, g*groupSize + byteSlot(0, m)
		}
	}
	for m := matchTag(hi, tag); m != 0; m &= m - 1 {
		if i, e := grp.entry(s, byteSlot(1, m)); e.hash == h {
			return i, e, g*groupSize + byteSlot(1, m)
		}
	}
	if matchEmpty(lo)|matchEmpty(hi) != 0 {
		return nilIdx, nil, g*groupSize + grp.firstFree()
	}
	return x.findFurther(s, h, g, tag)
}

// findFurther is findHash's walk from the home group g on.
func (x *index) findFurther(s *slab, h, g uint32, tag uint8) (int32, *entry, uint32) {
	free := noPos
	for step := uint32(1); ; step++ {
		grp := &x.groups[g&x.mask]
		lo, hi := grp.word(0), grp.word(1)
		for m := matchTag(lo, tag); m != 0; m &= m - 1 {
			j := byteSlot(0, m)
			if i, e := grp.entry(s, j); e.hash == h {
				return i, e, g*groupSize + j
			}
		}
		for m := matchTag(hi, tag); m != 0; m &= m - 1 {
			j := byteSlot(1, m)
			if i, e := grp.entry(s, j); e.hash == h {
				return i, e, g*groupSize + j
			}
		}
		if free == noPos {
			if m := matchFree(lo); m != 0 {
				free = g*groupSize + byteSlot(0, m)
			} else if m := matchFree(hi); m != 0 {
				free = g*groupSize + byteSlot(1, m)
			}
		}
		if matchEmpty(lo)|matchEmpty(hi) != 0 {
			return nilIdx, nil, free
		}
		g = (g + step) & x.mask // triangular probing visits every group
	}
}

// entry returns the slab index in slot j and its entry.
func (g *group) entry(s *slab, j uint32) (int32, *entry) {
	i := g.slot(j)
	return i, s.at(i)
}

// findKey is find comparing every key with h's 32 bits on the way: the
// slow path, for when findHash's entry was another key's.
func (x *index) findKey(s *slab, key string, h uint32) (int32, *entry, uint32) {
	g, tag := x.home(h)
	free := noPos
	for step := uint32(1); ; step++ {
		grp := &x.groups[g]
		for w := range 2 {
			for m := matchTag(grp.word(w), tag); m != 0; m &= m - 1 {
				j := byteSlot(w, m)
				i := grp.slot(j)
				if e := s.at(i); e.hash == h && s.hasKey(e, key) {
					return i, e, g*groupSize + j
				}
			}
		}
		if free == noPos {
			if j := grp.firstFree(); j < groupSize {
				free = g*groupSize + j
			}
		}
		if grp.hasEmpty() {
			return nilIdx, nil, free
		}
		g = (g + step) & x.mask
	}
}

// position returns the slot position of slab index i, which has hash h and
// must be in the table.
func (x *index) position(i int32, h uint32) uint32 {
	g, tag := x.home(h)
	for step := uint32(1); ; step++ {
		grp := &x.groups[g]
		for w := range 2 {
			for m := matchTag(grp.word(w), tag); m != 0; m &= m - 1 {
				if j := byteSlot(w, m); grp.slot(j) == i {
					return g*groupSize + j
				}
			}
		}
		g = (g + step) & x.mask
	}
}

// insertAt adds slab index i, with hash h, at the position find returned for
// its absent key. The entry must already be live in s.
func (x *index) insertAt(s *slab, i int32, h uint32, pos uint32) {
	if pos == noPos {
		x.rebuild(s)
		return
	}
	grp, j := &x.groups[pos/groupSize], pos%groupSize
	wasEmpty := grp.ctrlAt(j) == ctrlEmpty
	if wasEmpty && x.used >= x.limit {
		x.rebuild(s) // the rebuilt table includes i
		return
	}
	_, tag := x.home(h)
	grp.setCtrl(j, tag)
	grp.setSlot(j, i)
	x.count++
	if wasEmpty {
		x.used++
	}
}

// deleteAt frees the slot at pos.
func (x *index) deleteAt(pos uint32) {
	grp, j := &x.groups[pos/groupSize], pos%groupSize
	if grp.hasEmpty() {
		grp.setCtrl(j, ctrlEmpty)
		x.used--
	} else {
		grp.setCtrl(j, ctrlDeleted)
	}
	x.count--
}

// rebuild makes a new table holding the live entries of s.
func (x *index) rebuild(s *slab) {
	n := max(len(x.groups), minGroups)
	if s.live > n*groupSize/8*7/4*3 {
		n *= 2
	}
	for s.live > n*groupSize/8*7 {
		n *= 2
	}
	x.empty(n)
	for i := int32(0); i < s.n; i++ {
		if e := s.at(i); e.live() {
			x.insertAt(s, i, e.hash, x.freeSlot(e.hash))
		}
	}
}

// reserve makes the table empty and big enough for n keys, with a quarter
// of its limit to spare, so n inserts cause no rebuild.
func (x *index) reserve(n int) {
	g := minGroups
	for n > roomOf(g) {
		g *= 2
	}
	x.empty(g)
}

// roomOf is how many keys reserve puts in a table of groups: its limit
// (7/8 full) with a quarter of that to spare.
func roomOf(groups int) int { return groups * groupSize / 8 * 7 / 4 * 3 }

// empty makes the table an empty one of n groups (a power of two).
func (x *index) empty(n int) {
	*x = index{
		gen:    x.gen + 1,
		groups: make([]group, n),
		mask:   uint32(n - 1),
		shift:  uint8(32 - bits.TrailingZeros(uint(n))),
		limit:  n * groupSize / 8 * 7,
	}
	for g := range x.groups {
		x.groups[g].ctrl = emptyCtrl
	}
}

// freeSlot returns the first free slot on the probe sequence of hash h.
func (x *index) freeSlot(h uint32) uint32 {
	g, _ := x.home(h)
	for step := uint32(1); ; step++ {
		if j := x.groups[g].firstFree(); j < groupSize {
			return g*groupSize + j
		}
		g = (g + step) & x.mask
	}
}

// each calls f with every slab index in the table, until f returns false.
func (x *index) each(f func(int32) bool) {
	for g := range x.groups {
		grp := &x.groups[g]
		for m := grp.matchFull(); m != 0; m &= m - 1 {
			if !f(grp.slot(first(m))) {
				return
			}
		}
	}
}
