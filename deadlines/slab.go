package deadlines

// entry is one pending deadline: 48 bytes on 64-bit platforms. The key is the
// caller's string (only its header is stored here); the kind is interned; a
// payload, which few deadlines have, lives in the wheel's side map.
//
// What a lookup checks (the key, its hash, whether the entry is live) comes
// first, in 24 bytes: of four entries in a row (three cache lines) only one
// has them straddle two lines, where the key and the hash 16 bytes apart
// straddled in two.
type entry struct {
	key   string
	hash  uint32 // the key's hash: the index's home slot and tag come from it
	kind  uint16 // index into the wheel's interned kinds
	where uint16 // the bucket holding the entry, plus the hasPayload flag
	at    int64  // nanoseconds since the epoch, clamped by clampAt
	since int64  // nanoseconds since the epoch, or noSince
	next  int32  // next entry of the slot list (or of the free list), or nilIdx
	prev  int32  // previous entry of the slot list, or nilIdx for its head
}

const (
	nilIdx int32 = -1

	// whereBucket masks the bucket number in entry.where: a slot of a level
	// (level*slots + slot), bucketOverdue, or bucketFree.
	whereBucket uint16 = 0x3ff
	// hasPayload marks an entry whose payload is in the side map.
	hasPayload uint16 = 0x8000
)

func (e *entry) bucket() uint16 { return e.where & whereBucket }

func (e *entry) setBucket(b uint16) { e.where = e.where&^whereBucket | b }

func (e *entry) live() bool { return e.bucket() != bucketFree }

// The slab stores entries in fixed pages of pageSize, addressed by int32
// indices: growing never copies an entry, leaves at most one page of slack,
// and an index (or pointer) stays valid for an entry's whole life. Freed
// entries are reused through a free list threaded on entry.next. A page is
// 48 KiB: a large object, six runtime pages exactly, so no size class rounds
// it up (a small object with pointers would also carry a malloc header).
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
}

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

// release puts entry i on the free list, dropping its key so the caller's
// string can be collected.
func (s *slab) release(i int32) {
	s.live--
	*s.at(i) = entry{next: s.free, where: bucketFree}
	s.free = i
}
