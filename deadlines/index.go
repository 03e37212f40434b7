package deadlines

import (
	"encoding/binary"
	"math/bits"
)

// index maps keys to slab indices: an open-addressing hash table in the
// style of a Swiss table, 5 bytes a slot, in two arrays.
//
// Slots come in groups of 16. A group's 16 control bytes (one a slot: empty,
// deleted, or 7 bits of the key's hash) are in ctrl, four groups to a cache
// line; its 16 slots are in slots, one cache line, each a slab index in 24
// bits (so a wheel holds at most maxEntries deadlines) below 8 more bits of
// the key's hash (check). A lookup scans the control bytes of a group at
// once (SWAR bit tricks on two uint64s), reads the group's slots only when a
// control byte matches, and an entry only for a slot whose 15 hash bits
// match; it stops at the first group with an empty slot. So a key that is
// absent, what a push of a new deadline asks, usually costs one line of the
// control bytes, a fifth of the table's size (at 1M pending 2 MiB of 10,
// which stays in the caches and the TLB where the rest does not); a key that
// is present costs that, its slot line and its entry. An insert's slot
// write is held back (write): up to maxWrites of them are done together,
// their misses overlapped, and the last one is dropped if its key is
// deleted first, as a deadline cancelled just after it was set is, so
// such a push and cancel touch only the control bytes. A line never
// straddles two (the arrays are allocated in multiples of 64 bytes, which
// the allocator aligns to 64).
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
	ctrl  []ctrlGroup // by group: its control bytes
	slots []slotGroup // by group: its slots
	mask  uint32      // len(ctrl) - 1; len(ctrl) is a power of two
	shift uint8       // home group = hash >> shift
	count int         // full slots
	used  int         // full and deleted slots
	limit int         // the most slots that may be used
	gen   uint32      // counts the tables made: a position is valid within one
	// warmed is what warm loaded, kept so that the compiler keeps its loads.
	warmed uint32

	// The slot writes of the latest inserts, not done yet (writes), with a
	// bit for each group they may be in (writesIn, by group number modulo
	// 64). They are done all at once (flush) when there are maxWrites, or
	// when a slot of a group marked is read (slotValue).
	writes   [maxWrites]slotWrite
	nWrites  uint32
	writesIn uint64
}

// slotWrite is a write of value v to slot position pos.
type slotWrite struct{ pos, v uint32 }

// maxWrites is how many slot writes an index holds back: enough that the
// writes of a flush, which do not wait on one another, overlap their cache
// misses.
const maxWrites = 16

// ctrlGroup is a group's control bytes: ctrl[j] describes slot j, read eight
// at a time as a little-endian word (word 0 slots 0 to 7, word 1 slots 8 to
// 15) and written one byte at a time.
type ctrlGroup [groupSize]byte

// slotGroup is a group's slots, 64 bytes: slot j holds a slab index in its
// low 24 bits and the check bits of its key's hash above them.
type slotGroup [groupSize]uint32

// word is control word w (0 or 1).
func (c *ctrlGroup) word(w int) uint64 { return binary.LittleEndian.Uint64(c[(w&1)*8:]) }

const (
	groupSize = 16
	minGroups = 2

	ctrlEmpty   = 0x80
	ctrlDeleted = 0xfe // a full slot holds its hash's low 7 bits, 0x00 to 0x7f

	slotIndex = 0x00ffffff // a slot's slab index

	lsb = 0x0101010101010101
	msb = 0x8080808080808080

	noPos = ^uint32(0)
)

// emptyCtrl is the control bytes of an empty group.
var emptyCtrl = ctrlGroup{
	ctrlEmpty, ctrlEmpty, ctrlEmpty, ctrlEmpty, ctrlEmpty, ctrlEmpty, ctrlEmpty, ctrlEmpty,
	ctrlEmpty, ctrlEmpty, ctrlEmpty, ctrlEmpty, ctrlEmpty, ctrlEmpty, ctrlEmpty, ctrlEmpty,
}

// check is the 8 bits of h a slot keeps above its slab index, in place:
// bits 7 to 14, next to the tag's 0 to 6, so that together they tell 2^15
// hashes apart before an entry is read.
func check(h uint32) uint32 { return h << 17 & ^uint32(slotIndex) }

// slotOf is the slot value of slab index i with hash h.
func slotOf(i int32, h uint32) uint32 { return uint32(i) | check(h) }

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

func (c *ctrlGroup) matchFull() uint16 { return slotsOf(^c.word(0)&msb, ^c.word(1)&msb) }
func (c *ctrlGroup) hasEmpty() bool    { return matchEmpty(c.word(0))|matchEmpty(c.word(1)) != 0 }

// firstFree is the slot of the group's first free (empty or deleted) slot;
// groupSize if it has none.
func (c *ctrlGroup) firstFree() uint32 {
	if m := matchFree(c.word(0)); m != 0 {
		return byteSlot(0, m)
	}
	if m := matchFree(c.word(1)); m != 0 {
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

func (c *ctrlGroup) at(j uint32) uint8 { return c[j%groupSize] }

func (c *ctrlGroup) set(j uint32, b uint8) { c[j%groupSize] = b }

// slot is the slab index at position pos.
func (x *index) slot(pos uint32) int32 {
	return int32(x.slotValue(pos/groupSize, pos%groupSize) & slotIndex)
}

// setSlot makes position pos, which holds the key of hash h, name slab
// index i.
func (x *index) setSlot(pos uint32, i int32, h uint32) { x.write(pos, slotOf(i, h)) }

// slotsOf is group g's slots, with every write held back for them done.
func (x *index) slotsOf(g uint32) *slotGroup {
	if x.writesIn>>(g%64)&1 != 0 {
		x.flush()
	}
	return &x.slots[g]
}

// slotValue is the value of slot j of group g. When a write held back may
// be in the group, they are all done first.
func (x *index) slotValue(g, j uint32) uint32 { return x.slotsOf(g)[j%groupSize] }

// write writes v to slot position pos, later: an insert's slot line is a
// cache miss in a large table, which the lookup before it did not need (it
// read the control bytes only), and the line of a key cancelled soon after
// (the last write, dropped by deleteAt) is never touched.
func (x *index) write(pos, v uint32) {
	if x.nWrites >= maxWrites {
		x.flush()
	}
	x.writes[x.nWrites%maxWrites] = slotWrite{pos, v}
	x.nWrites++
	x.writesIn |= 1 << (pos / groupSize % 64)
}

// flush does the writes held back, in order.
func (x *index) flush() {
	for _, wr := range x.writes[:min(x.nWrites, maxWrites)] {
		x.slots[wr.pos/groupSize][wr.pos%groupSize] = wr.v
	}
	x.nWrites, x.writesIn = 0, 0
}

// warm loads the home group lines, control bytes and slots, of the
// entries taken, all in one pass, so that their cache misses overlap: the
// deletes that follow then find them in the cache, where each would wait
// on its own two misses in turn.
func (x *index) warm(s *slab, taken []int32) {
	if len(taken) < 2 {
		return
	}
	var sum uint32
	for _, i := range taken {
		g, _ := x.home(s.at(i).hash)
		sum += uint32(x.ctrl[g][0]) + x.slots[g][0]
	}
	x.warmed = sum
}

// groups is the number of groups.
func (x *index) groups() int { return len(x.ctrl) }

// home is h's home group and tag. A table has at least minGroups groups,
// so shift is at most 31 (the mask tells the compiler so: no test for a
// shift past the word).
func (x *index) home(h uint32) (g uint32, tag uint8) { return h >> (x.shift & 31), uint8(h & 0x7f) }

// find returns the slab index and entry of key, and its slot position
// (group*16 + slot). When key is absent it returns nilIdx, a nil entry, and
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
// The group's slots are read only when a control byte matches: for an
// absent key, in about one lookup of 16 at most (a group holds at most 14
// keys, each matching with a chance of 1/128).
func (x *index) findHash(s *slab, h uint32) (int32, *entry, uint32) {
	if len(x.ctrl) == 0 {
		return nilIdx, nil, noPos
	}
	g, tag := x.home(h)
	c := &x.ctrl[g]
	lo, hi := c.word(0), c.word(1)
	if mlo, mhi := matchTag(lo, tag), matchTag(hi, tag); mlo|mhi != 0 {
		sg, ck := x.slotsOf(g), check(h)
		for m := mlo; m != 0; m &= m - 1 {
			j := byteSlot(0, m)
			if v := sg[j%groupSize]; v&^slotIndex == ck {
				if e := s.at(int32(v & slotIndex)); e.hash == h {
					return int32(v & slotIndex), e, g*groupSize + j
				}
			}
		}
		for m := mhi; m != 0; m &= m - 1 {
			j := byteSlot(1, m)
			if v := sg[j%groupSize]; v&^slotIndex == ck {
				if e := s.at(int32(v & slotIndex)); e.hash == h {
					return int32(v & slotIndex), e, g*groupSize + j
				}
			}
		}
	}
	if matchEmpty(lo)|matchEmpty(hi) != 0 {
		return nilIdx, nil, g*groupSize + c.firstFree()
	}
	return x.findFurther(s, h, g, tag)
}

// hashAt is the slab index and entry in slot j of sg, a full slot whose
// control byte matched, when the entry's hash is h (the slot's check bits
// ck); else nilIdx and nil.
func hashAt(s *slab, sg *slotGroup, j, h, ck uint32) (int32, *entry) {
	if v := sg[j%groupSize]; v&^slotIndex == ck {
		if e := s.at(int32(v & slotIndex)); e.hash == h {
			return int32(v & slotIndex), e
		}
	}
	return nilIdx, nil
}

// findFurther is findHash's walk from the home group g on. It takes the
// matches of both control words as one bitmap: the walk is rare (a group
// past its home only when the home group is full), so it is written for
// brevity, not for registers.
func (x *index) findFurther(s *slab, h, g uint32, tag uint8) (int32, *entry, uint32) {
	free, ck := noPos, check(h)
	for step := uint32(1); ; step++ {
		g &= x.mask
		c := &x.ctrl[g]
		lo, hi := c.word(0), c.word(1)
		for m := slotsOf(matchTag(lo, tag), matchTag(hi, tag)); m != 0; m &= m - 1 {
			if i, e := hashAt(s, x.slotsOf(g), first(m), h, ck); e != nil {
				return i, e, g*groupSize + first(m)
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
		g += step // triangular probing visits every group
	}
}

// findKey is find comparing every key with h's 32 bits on the way: the
// slow path, for when findHash's entry was another key's.
func (x *index) findKey(s *slab, key string, h uint32) (int32, *entry, uint32) {
	g, tag := x.home(h)
	free, ck := noPos, check(h)
	for step := uint32(1); ; step++ {
		c := &x.ctrl[g]
		for w := range 2 {
			for m := matchTag(c.word(w), tag); m != 0; m &= m - 1 {
				j := byteSlot(w, m)
				v := x.slotValue(g, j)
				if v&^slotIndex != ck {
					continue
				}
				i := int32(v & slotIndex)
				if e := s.at(i); e.hash == h && s.hasKey(e, key) {
					return i, e, g*groupSize + j
				}
			}
		}
		if free == noPos {
			if j := c.firstFree(); j < groupSize {
				free = g*groupSize + j
			}
		}
		if c.hasEmpty() {
			return nilIdx, nil, free
		}
		g = (g + step) & x.mask
	}
}

// position returns the slot position of slab index i, which has hash h and
// must be in the table.
func (x *index) position(i int32, h uint32) uint32 {
	g, tag := x.home(h)
	v := slotOf(i, h)
	for step := uint32(1); ; step++ {
		c := &x.ctrl[g]
		for w := range 2 {
			for m := matchTag(c.word(w), tag); m != 0; m &= m - 1 {
				if j := byteSlot(w, m); x.slotValue(g, j) == v {
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
	c, j := &x.ctrl[pos/groupSize], pos%groupSize
	wasEmpty := c.at(j) == ctrlEmpty
	if wasEmpty && x.used >= x.limit {
		x.rebuild(s) // the rebuilt table includes i
		return
	}
	_, tag := x.home(h)
	c.set(j, tag)
	x.write(pos, slotOf(i, h))
	x.count++
	if wasEmpty {
		x.used++
	}
}

// deleteAt frees the slot at pos. It touches the control bytes only: a
// slot is read only where its control byte says it is full, so a write
// held back for it may be done or not; the last one, a key cancelled just
// after it was added, is dropped.
func (x *index) deleteAt(pos uint32) {
	if n := x.nWrites; n > 0 && x.writes[(n-1)%maxWrites].pos == pos {
		x.nWrites = n - 1
		if n == 1 {
			x.writesIn = 0
		}
	}
	c, j := &x.ctrl[pos/groupSize], pos%groupSize
	if c.hasEmpty() {
		c.set(j, ctrlEmpty)
		x.used--
	} else {
		c.set(j, ctrlDeleted)
	}
	x.count--
}

// rebuild makes a new table holding the live entries of s.
func (x *index) rebuild(s *slab) {
	n := max(len(x.ctrl), minGroups)
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
		gen:   x.gen + 1,
		ctrl:  make([]ctrlGroup, n),
		slots: make([]slotGroup, n),
		mask:  uint32(n - 1),
		shift: uint8(32 - bits.TrailingZeros(uint(n))),
		limit: n * groupSize / 8 * 7,
	}
	for g := range x.ctrl {
		x.ctrl[g] = emptyCtrl
	}
}

// freeSlot returns the first free slot on the probe sequence of hash h.
func (x *index) freeSlot(h uint32) uint32 {
	g, _ := x.home(h)
	for step := uint32(1); ; step++ {
		if j := x.ctrl[g].firstFree(); j < groupSize {
			return g*groupSize + j
		}
		g = (g + step) & x.mask
	}
}

// each calls f with every slab index in the table, until f returns false.
func (x *index) each(f func(int32) bool) {
	for g := range x.ctrl {
		for m := x.ctrl[g].matchFull(); m != 0; m &= m - 1 {
			if !f(x.slot(uint32(g)*groupSize + first(m))) {
				return
			}
		}
	}
}
