package deadlines

import (
	"encoding/binary"
	"unsafe"
)

// entry is one pending deadline: 64 bytes, one cache line (see the slab),
// with no pointers in it, so the slab's pages are never scanned by the
// garbage collector and a lookup that finds the entry has its key in the
// same line as its hash and links, not behind a pointer to bytes of their
// own.
//
// A key of up to inlineKey bytes, which is what the engine's keys are
// ("reminder/<name>", "lease/<name>", "redeliver/<lane>/<class>",
// "absent/<host>"; "burst/<root>" and "reconcile/<root>" for a short
// root), lives in keyBytes, keyLen long. A longer one (a deep root's path)
// lives in the slab's side table of long keys: keyLen is longKey and
// keyBytes starts with its number there. The kind is interned; a payload,
// which few deadlines have, lives in the wheel's side map.
type entry struct {
	hash     uint32 // the key's hash: the index's home slot and tag come from it
	kind     uint16 // index into the wheel's interned kinds
	where    uint16 // the bucket holding the entry, plus the hasPayload flag
	at       int64  // nanoseconds since the epoch, clamped by clampAt
	since    int64  // nanoseconds since the epoch, or noSince
	next     int32  // next entry of the slot list (or of the free list), or nilIdx
	prev     int32  // previous entry of the slot list, or nilIdx for its head
	keyLen   uint8  // the key's length, or longKey
	keyBytes [inlineKey]byte
}

const (
	nilIdx int32 = -1

	// whereBucket masks the bucket number in entry.where: a slot of a level
	// (level*slots + slot), bucketOverdue, or bucketFree.
	whereBucket uint16 = 0x3ff
	// hasPayload marks an entry whose payload is in the side map.
	hasPayload uint16 = 0x8000

	// inlineKey is the longest key an entry holds itself: what is left of
	// a cache line after the other fields and the length. It covers a
	// reminder's name of up to 22 bytes after "reminder/", a lease's of up
	// to 25, a lane and class together of up to 20.
	inlineKey = 31
	// longKey is the keyLen of an entry whose key is in the long keys.
	longKey = 0xff
)

func (e *entry) bucket() uint16 { return e.where & whereBucket }

func (e *entry) setBucket(b uint16) { e.where = e.where&^whereBucket | b }

func (e *entry) live() bool { return e.bucket() != bucketFree }

// mayHold is false when e cannot hold key by its last byte, which it
// compares without a call (an inline key's bytes are in e).
func (e *entry) mayHold(key string) bool {
	n := len(key)
	return n == 0 || n > inlineKey || e.keyBytes[n-1] == key[n-1]
}

// holdsShort reports whether e holds the key of n bytes, 8 to 16, whose
// first and last 8 bytes are a and b: its length and the same words of its
// inline key, the last first, in two loads of the entry's line and no
// call.
func (e *entry) holdsShort(n int, a, b uint64) bool {
	return int(e.keyLen) == n && e.word(n-8) == b && e.word(0) == a
}

// word is the 8 bytes of the inline key at o, little-endian.
func (e *entry) word(o int) uint64 { return binary.LittleEndian.Uint64(e.keyBytes[o&15:]) }

// longID is the number, in the slab's long keys, of a long key's entry.
func (e *entry) longID() int32 { return int32(binary.LittleEndian.Uint32(e.keyBytes[:4])) }

func (e *entry) setLongID(id int32) { binary.LittleEndian.PutUint32(e.keyBytes[:4], uint32(id)) }

// The slab stores entries in fixed pages of pageSize, addressed by int32
// indices: growing never copies an entry, leaves at most one page of slack,
// and an index (or pointer) stays valid for an entry's whole life. Freed
// entries are reused through a free list threaded on entry.next. A page is
// 64 KiB: a large object, eight runtime pages exactly, so no size class
// rounds it up; it starts at a runtime page boundary, so every entry is
// one aligned cache line; and it holds no pointer, so the allocator marks
// it noscan and a collection neither scans the pages nor marks a key per
// entry (memory_test.go checks both).
const (
	// maxEntries bounds the entries of a wheel: the index stores slab
	// indices in 3 bytes, and a hint an index+1 in 24 bits.
	maxEntries = 1<<24 - 1

	pageBits = 10
	pageSize = 1 << pageBits
	pageMask = pageSize - 1
)

type slab struct {
	pages []*[pageSize]entry
	free  int32 // head of the free list, or nilIdx
	n     int32 // indices handed out so far; every index < n is addressable
	live  int   // entries allocated and not freed

	// long holds the keys longer than inlineKey, by the number their
	// entries keep; longFree lists the numbers free for reuse. Few keys
	// are long (a deep root's burst and reconcile), so the collector has
	// few strings to mark here.
	long     []string
	longFree []int32

	// out is the chunk that key carves handed-out keys from.
	out []byte
}

// outChunk is the size of the chunks of handed-out keys: one allocation
// for about 150 fired deadlines of the engine's keys, not one each; a key
// kept for long keeps its chunk alive.
const outChunk = 4 << 10

func (s *slab) at(i int32) *entry { return &s.pages[i>>pageBits][i&pageMask] }

// alloc returns the index of a zeroed, live entry.
func (s *slab) alloc() int32 {
	s.live++
	if i := s.free; i != nilIdx {
		e := s.at(i)
		s.free = e.next
		*e = entry{}
		return i
	}
	if s.n == maxEntries {
		panic("deadlines: too many pending deadlines")
	}
	if int(s.n>>pageBits) == len(s.pages) {
		s.pages = append(s.pages, new([pageSize]entry))
	}
	s.n++
	return s.n - 1
}

// release puts entry i, at e, on the free list, dropping its long key, if
// it has one, so that the string can be collected. Its key length becomes
// 0, so a compare with any key of 8 bytes or more (holdsShort) fails on a
// freed entry without a test of live. The rest of the entry is left as it
// is (nothing in it points anywhere): alloc zeroes it.
func (s *slab) release(i int32, e *entry) {
	s.live--
	if e.keyLen == longKey {
		s.releaseLong(e)
	}
	e.next, e.where, e.keyLen = s.free, bucketFree, 0
	s.free = i
}

//go:noinline
func (s *slab) releaseLong(e *entry) {
	id := e.longID()
	s.long[id] = ""
	s.longFree = append(s.longFree, id)
}

// setKey stores key in e, a new entry (or one whose long key was
// released). A long key is kept as given: the caller's string must not
// change (a Go string never does; a loader's view of bytes is cloned
// first).
//
// The length is stored first. A new entry's first touch is often the first
// of its slab page, and it must be a write: slicing keyBytes for the copy
// reads the entry first (the compiler's nil check), and a read of a page
// never touched maps the kernel's shared zero page, so the copy's write
// then takes a second fault, which replaces that page and flushes the
// other processors' TLBs (an interprocessor interrupt, dear on a virtual
// machine). A store first faults once, the page mapped writable, and the
// nil check goes with it.
func (s *slab) setKey(e *entry, key string) {
	n := len(key)
	if n > inlineKey {
		s.setLongKey(e, key)
		return
	}
	e.keyLen = uint8(n)
	if n >= 8 && n <= 16 { // two stores, not a call to copy
		binary.LittleEndian.PutUint64(e.keyBytes[:], load64(key))
		binary.LittleEndian.PutUint64(e.keyBytes[(n-8)&15:], load64(key[n-8:]))
		return
	}
	copy(e.keyBytes[:], key)
}

//go:noinline
func (s *slab) setLongKey(e *entry, key string) {
	var id int32
	if n := len(s.longFree); n > 0 {
		id = s.longFree[n-1]
		s.longFree = s.longFree[:n-1]
		s.long[id] = key
	} else {
		id = int32(len(s.long))
		s.long = append(s.long, key)
	}
	e.keyLen = longKey
	e.setLongID(id)
}

// keyView is e's key without a copy: for an inline key, a string over the
// entry's own bytes, which is only good while the entry holds that key
// (compare it, never keep it); a long key is the string stored.
func (s *slab) keyView(e *entry) string {
	if e.keyLen == longKey {
		return s.long[e.longID()]
	}
	return unsafe.String(&e.keyBytes[0], int(e.keyLen))
}

// key is e's key as a string of its own, to hand out: for an inline key a
// copy carved out of the current chunk of handed-out keys (whose bytes are
// written once and never again, as unsafe.String asks), for a long one the
// string stored.
func (s *slab) key(e *entry) string {
	n := int(e.keyLen)
	switch {
	case e.keyLen == longKey:
		return s.long[e.longID()]
	case n == 0:
		return ""
	case cap(s.out)-len(s.out) < n:
		s.out = make([]byte, 0, outChunk)
	}
	start := len(s.out)
	s.out = append(s.out, e.keyBytes[:n]...)
	return unsafe.String(&s.out[start], n)
}

// hasKey reports whether e holds key. For an inline key it compares the
// length, then the bytes: the entry's line is already read, and the
// caller's key is the only other memory touched. It is small enough to be
// inlined into every lookup; a long key takes the call.
func (s *slab) hasKey(e *entry, key string) bool {
	if len(key) > inlineKey {
		return s.hasLongKey(e, key)
	}
	return int(e.keyLen) == len(key) && unsafe.String(&e.keyBytes[0], len(key)) == key
}

func (s *slab) hasLongKey(e *entry, key string) bool {
	return e.keyLen == longKey && s.long[e.longID()] == key
}
