package deadlines

import (
	"cmp"
	"math"
	"math/bits"
	"slices"
	"strings"
	"time"
)

// The levels of the wheel. Level l has 64 slots, each 64^l base ticks wide.
// A due tick is written as base-64 digits; an entry sits at the level of the
// highest digit in which its due tick differs from the wheel's current tick,
// in the slot named by that digit. Eleven levels cover all 64 bits, so every
// representable deadline has a slot (at a 1 ms tick a slot of level 5 spans
// 12 days, one of level 6 two years): nothing is parked outside the wheel.
//
// Invariants, with cur the wheel's current tick:
//   - every entry in a level's slot has a due tick > cur, agrees with cur in
//     every digit above the level, and has a larger digit at the level;
//   - so a level's occupied slots all start after cur, and every slot of a
//     level starts before every slot of the levels above it;
//   - an entry with a due tick <= cur is on the overdue list (it fires
//     when an Advance reaches its At);
//   - a slot's bit in occupied is set iff its list is non-empty, and a
//     level's bit in levelMask iff its occupied word is non-zero.
const (
	slotBits = 6
	slots    = 1 << slotBits
	levels   = 11

	nBuckets      = levels * slots
	bucketOverdue = uint16(nBuckets)     // due ticks <= cur, each fired once an Advance reaches its At
	bucketBacklog = uint16(nBuckets + 1) // due, left by an AdvanceAtMost, in (At, Key) order (backlog.go)
	bucketFree    = uint16(nBuckets + 2) // entries on the slab's free list
)

// bucketFor returns the bucket for the biased due tick u.
func (w *Wheel) bucketFor(u uint64) uint16 {
	if u <= w.cur {
		return bucketOverdue
	}
	l := uint(bits.Len64(u^w.cur)-1) / slotBits // u > cur: they differ
	return uint16(l*slots) + uint16(u>>(l*slotBits&63)&(slots-1))
}

// slotStart is the first tick of slot s of level l, given the current tick.
func (w *Wheel) slotStart(l, s int) uint64 {
	above := uint(l+1) * slotBits // shifts of 64 or more give 0
	return w.cur>>above<<above | uint64(s)<<(l*slotBits)
}

// slotMin is Earliest's memory: the smallest entry of each slot (its index
// + 1; 0 when not known), kept while entries come and go and dropped only
// when that entry leaves or moves. A slot of a coarse level can hold a
// million deadlines (a month of reminders), and status asks for the
// earliest on the loop. A memory per slot, not only for the earliest one,
// keeps that slot's answer while reminders due in a few milliseconds come
// and go in the slots before it (with one memory, each of them that fired
// sent the next status through the million again).
type slotMin [nBuckets]int32

func (m *slotMin) get(b uint16) (int32, bool) {
	if b >= nBuckets {
		return nilIdx, false
	}
	return m[b] - 1, m[b] != 0
}

func (m *slotMin) set(b uint16, i int32) { m[b] = i + 1 }

func (m *slotMin) forget(b uint16) {
	if b < nBuckets {
		m[b] = 0
	}
}

// before orders entries as Earliest does: by At, then key (compared in
// place, without a copy of either).
func (w *Wheel) before(e, f *entry) bool {
	return e.at < f.at || e.at == f.at && w.slab.keyView(e) < w.slab.keyView(f)
}

// link puts entry i at the head of bucket b's list.
func (w *Wheel) link(i int32, e *entry, b uint16) {
	if m, ok := w.min.get(b); ok && w.before(e, w.slab.at(m)) {
		w.min.set(b, i)
	}
	head := w.heads[b]
	if b == bucketOverdue {
		w.overdueUnsorted = head != nilIdx && (w.overdueUnsorted || e.at > w.slab.at(head).at)
	}
	e.next, e.prev = head, nilIdx
	if head != nilIdx {
		w.slab.at(head).prev = i
	}
	w.heads[b] = i
	e.setBucket(b)
	if b < nBuckets {
		l := b / slots
		w.occupied[l] |= 1 << (b % slots)
		w.levelMask |= 1 << l
	}
}

// unlink takes entry e out of its bucket's list.
func (w *Wheel) unlink(e *entry) {
	b := e.bucket()
	if m, ok := w.min.get(b); ok && w.slab.at(m) == e {
		w.min.forget(b)
	}
	if e.prev == nilIdx {
		w.heads[b] = e.next
	} else {
		w.slab.at(e.prev).next = e.next
	}
	if e.next != nilIdx {
		w.slab.at(e.next).prev = e.prev
	} else if b == bucketBacklog {
		w.backlogTail = e.prev
	}
	if b == bucketBacklog {
		w.backlogLen--
	}
	if w.heads[b] == nilIdx && b < nBuckets {
		w.emptied(b)
	}
}

// emptied clears the occupancy bits of bucket b, whose list is now empty.
func (w *Wheel) emptied(b uint16) {
	w.min.forget(b)
	l := b / slots
	w.occupied[l] &^= 1 << (b % slots)
	if w.occupied[l] == 0 {
		w.levelMask &^= 1 << l
	}
}

// rearm moves entry i, whose At changed from old, to the bucket of its
// new At. A re-arm that stays in its bucket touches no list and no other
// entry, unless its slot's smallest entry is known (slotMin) and is
// another one, which it is compared with; moved earlier, the smallest
// stays the smallest. A move to another bucket is an unlink and a link,
// which keep the slot minima of both.
//
// A caller tries stays first, which is inlined: the common re-arm, a
// window slid on within the slot re-armed in last, costs no call.
func (w *Wheel) rearm(i int32, e *entry, old int64) {
	b := e.bucket()
	if sp := &w.span; sp.b != b || !sp.holds(e.at) {
		if nb := w.bucketFor(w.dueTick(e.at)); nb != b {
			w.unlink(e)
			w.link(i, e, nb)
			return
		}
		if b == bucketOverdue {
			w.overdueUnsorted = true // At moved within the list
			return
		}
		w.remember(b)
	}
	if m, ok := w.min.get(b); ok {
		if m != i {
			if w.before(e, w.slab.at(m)) {
				w.min.set(b, i)
			}
		} else if e.at > old { // it may no longer be the smallest
			w.min.forget(b)
		}
	}
}

// stays reports whether e, whose At changed, needs no rearm: its new At is
// in the span, which is e's slot, and that slot's smallest entry is not
// known (else rearm compares with it).
func (w *Wheel) stays(e *entry) bool {
	sp := &w.span
	return sp.b == e.bucket() && sp.holds(e.at) && w.min[sp.b%nBuckets] == 0
}

// span is rearm's memory of the instants of one slot: every At in
// [from, from+width) is due at a tick of slot b, so a re-arm there (a
// window slid on, most often) finds its slot with one comparison, not a
// division and the digit arithmetic. It holds while the current tick does:
// Advance forgets it. b is bucketFree when it holds nothing.
type span struct {
	from  int64
	width uint64
	b     uint16
}

// holds reports whether at is one of the span's instants.
func (sp *span) holds(at int64) bool { return uint64(at-sp.from) < sp.width }

// remember makes the span that of slot b (of a level, not overdue): from
// the instant after the tick before its start to its last tick.
func (w *Wheel) remember(b uint16) {
	l := int(b / slots)
	first := w.slotStart(l, int(b%slots))
	last := min(first+(1<<(uint(l)*slotBits)-1), w.maxTick)
	lo := w.tickNanos(first - 1)
	w.span = span{from: lo + 1, width: uint64(w.tickNanos(last) - lo), b: b}
}

// firstSlot returns the earliest occupied slot of the wheel; false if the
// levels are empty.
func (w *Wheel) firstSlot() (l, s int, ok bool) {
	if w.levelMask == 0 {
		return 0, 0, false
	}
	l = bits.TrailingZeros16(w.levelMask)
	return l, bits.TrailingZeros64(w.occupied[l]), true
}

// Next returns a time no later than the At of any pending deadline; false
// when nothing is pending. When the earliest deadline is overdue or in
// level 0 (due within 64 ticks) it is that deadline's At, exactly: the
// runner sleeps until then and the deadline fires at its own instant, not
// at a tick boundary. For a deadline in a coarser level it is the first
// instant due at its slot's start tick (a nanosecond after the tick before
// it, as an At is due at the tick that follows it): advancing there
// cascades the slot, and the following Next is finer, down to the exact At.
func (w *Wheel) Next() (time.Time, bool) {
	if i, ok := w.firstDue(); ok {
		return time.Unix(0, w.slab.at(i).at), true
	}
	l, s, ok := w.firstSlot()
	if !ok {
		return time.Time{}, false
	}
	if l == 0 {
		return time.Unix(0, w.slab.at(w.slotEarliest(uint16(s))).at), true
	}
	return time.Unix(0, w.tickNanos(w.slotStart(l, s)-1)+1), true
}

// Earliest returns the pending deadline with the smallest At (ties by
// key); false when nothing is pending. It looks only at the overdue list
// and the earliest occupied slot, which by the invariants above hold every
// deadline due before any other slot's, and at the backlog's first: its
// cost is the size of the overdue list, and the slot's size only when its
// smallest entry changed since the last call (slotMin), not the number
// pending.
func (w *Wheel) Earliest() (Deadline, bool) {
	best := w.heads[bucketBacklog] // the backlog's first, if any, is its earliest
	for i := w.heads[bucketOverdue]; i != nilIdx; i = w.slab.at(i).next {
		if best == nilIdx || w.before(w.slab.at(i), w.slab.at(best)) {
			best = i
		}
	}
	if best == nilIdx {
		if l, s, ok := w.firstSlot(); ok {
			best = w.slotEarliest(uint16(l*slots + s))
		}
	}
	if best == nilIdx {
		return Deadline{}, false
	}
	return w.deadline(best, w.slab.at(best)), true
}

// slotEarliest returns the smallest entry (by At, then key) of the
// non-empty slot b: slotMin's when known, else found by a walk of the slot
// and remembered.
func (w *Wheel) slotEarliest(b uint16) int32 {
	if m, ok := w.min.get(b); ok {
		return m
	}
	best := w.heads[b]
	for i := w.slab.at(best).next; i != nilIdx; i = w.slab.at(i).next {
		if w.before(w.slab.at(i), w.slab.at(best)) {
			best = i
		}
	}
	w.min.set(b, best)
	return best
}

// Advance appends to due every deadline whose At is <= now, in (At, Key)
// order, removes them, and returns the extended slice. AdvanceAtMost
// (backlog.go) is the same with a bound on how many it fires.
//
// It visits only occupied slots: each step takes the earliest one that
// starts by the tick now falls due at, moves the current tick to its
// start, takes its entries due by now and re-inserts the others, which land
// in finer levels, or, when due at that tick but after now, on the overdue
// list. A jump over a week of empty ticks costs nothing per empty tick. The
// current tick ends at now's due tick (now rounded up to a tick) and never
// moves back; a now before it fires only the overdue entries due by then.
// The entries taken are fired together (fireTaken): sorted as slab indices,
// then handed out and freed.
func (w *Wheel) Advance(now time.Time, due []Deadline) []Deadline {
	return w.advance(now, math.MaxInt, due)
}

// take moves the current tick to now's due tick (ns is now, clamped) and
// puts every deadline due by ns that is not in the backlog into w.taken,
// out of its list and in no order; the others that the slots it passed
// held go to finer levels or to the overdue list.
func (w *Wheel) take(ns int64) {
	w.span.b = bucketFree // the current tick may move
	limit := w.dueTick(ns)
	w.takeOverdue(ns)
	for limit > w.cur {
		l, s, ok := w.firstSlot()
		if !ok {
			break
		}
		start := w.slotStart(l, s)
		if start > limit {
			break
		}
		w.cur = start
		b := uint16(l*slots + s)
		i := w.heads[b]
		w.heads[b] = nilIdx
		w.emptied(b)
		for i != nilIdx {
			e := w.slab.at(i)
			next := e.next
			if e.at <= ns {
				w.taken = append(w.taken, i)
			} else { // a finer slot; the overdue list if due at start
				w.link(i, e, w.bucketFor(w.dueTick(e.at)))
			}
			i = next
		}
	}
	w.cur = max(w.cur, limit)
}

// maxTakenKept is the most slab indices Advance keeps room for between
// calls (16 KiB): a larger batch, a reload's backlog, gives its room back.
const maxTakenKept = 1 << 12

// fireTaken appends the entries Advance took (out of every list, still in
// the index) to due in (At, Key) order and frees them. It sorts their slab
// indices, 4 bytes each, not the Deadlines they become (104 bytes each,
// their keys copied): a few in place, comparing their entries; more as
// (At, index) pairs (firing), so that the sort reads each entry once and
// not at each of its comparisons, which in a large backlog are each a
// cache miss. It then takes them out of the index warmRun at a time, each
// run's index lines loaded first (index.warm), so that their misses
// overlap and the run's lines are still in the cache when it deletes.
func (w *Wheel) fireTaken(due []Deadline) []Deadline {
	t := w.taken
	w.sortTaken(t)
	due = w.fire(t, due)
	w.keepTaken(t)
	return due
}

// sortTaken puts the slab indices t in (At, Key) order: a few compared in
// place, more through pairs.
func (w *Wheel) sortTaken(t []int32) {
	if len(t) > pairSortFrom {
		w.sortByPairs(t)
	} else if len(t) > 1 {
		slices.SortFunc(t, w.compareEntries)
	}
}

// fire appends the entries t (out of every list, still in the index), in
// their order, to due and frees them.
func (w *Wheel) fire(t []int32, due []Deadline) []Deadline {
	for k := 0; k < len(t); k += warmRun {
		run := t[k:min(k+warmRun, len(t))]
		w.index.warm(&w.slab, run)
		for _, i := range run {
			e := w.slab.at(i)
			due = append(due, w.deadline(i, e))
			w.index.deleteAt(w.index.position(i, e.hash))
			w.drop(i, e)
		}
	}
	return due
}

// keepTaken empties w.taken, whose entries are t, keeping its room unless
// a backlog made it large.
func (w *Wheel) keepTaken(t []int32) {
	if cap(t) > maxTakenKept {
		t = nil
	}
	w.taken = t[:0]
}

const (
	// pairSortFrom is the batch above which fireTaken sorts pairs: a
	// batch as small as a tick's usually is has its entries in the cache.
	pairSortFrom = 64
	// warmRun is how many fired entries have their index lines loaded
	// together: enough misses to overlap, few enough lines (two an entry,
	// 8 KiB) that none is evicted before its delete.
	warmRun = 64
)

// firing is a fired entry's At and slab index, what fireTaken sorts.
type firing struct {
	at int64
	i  int32
}

// sortByPairs sorts t in (At, Key) order through pairs: each entry's At is
// read once, and an entry again only when two At are equal.
func (w *Wheel) sortByPairs(t []int32) {
	f := w.firing
	if cap(f) < len(t) {
		f = make([]firing, len(t))
	}
	f = f[:len(t)]
	for k, i := range t {
		f[k] = firing{w.slab.at(i).at, i}
	}
	w.sortFirings(f)
	for k := range f {
		t[k] = f[k].i
	}
	if cap(f) > maxTakenKept {
		f = nil
	}
	w.firing = f[:0]
}

// sortFirings sorts pairs by At, then key. Many (a backlog) are sorted by
// a radix sort of At, radixBits at a time over only the bits in which
// their instants differ (three passes for instants a second apart at most,
// five for a day), then each run of one instant by key; fewer by
// comparing them.
func (w *Wheel) sortFirings(f []firing) {
	if len(f) < radixFrom {
		slices.SortFunc(f, w.compareFirings)
		return
	}
	lo, hi := f[0].at, f[0].at
	for _, x := range f {
		lo, hi = min(lo, x.at), max(hi, x.at)
	}
	span := uint64(hi) - uint64(lo)
	src, dst := f, make([]firing, len(f))
	for shift := uint(0); shift < 64 && span>>shift != 0; shift += radixBits {
		var counts [1 << radixBits]int32
		for _, x := range src {
			counts[(uint64(x.at)-uint64(lo))>>shift&radixMask]++
		}
		at := int32(0)
		for d, n := range counts { // counts become each digit's start
			counts[d] = at
			at += n
		}
		for _, x := range src {
			c := &counts[(uint64(x.at)-uint64(lo))>>shift&radixMask]
			dst[*c] = x
			*c++
		}
		src, dst = dst, src
	}
	copy(f, src)              // a no-op when src is f
	for a := 0; a < len(f); { // ties, by key
		b := a + 1
		for b < len(f) && f[b].at == f[a].at {
			b++
		}
		if b-a > 1 {
			slices.SortFunc(f[a:b], w.compareFirings)
		}
		a = b
	}
}

const (
	// radixFrom is the batch from which sortFirings sorts by digits: the
	// 8 KiB of counts a pass clears and sums cost less than the
	// comparisons they save from about here on.
	radixFrom = 1 << 14
	radixBits = 11
	radixMask = 1<<radixBits - 1
)

// compareFirings orders pairs as compareEntries orders their entries,
// reading the entries only for a tie.
func (w *Wheel) compareFirings(a, b firing) int {
	if c := cmp.Compare(a.at, b.at); c != 0 {
		return c
	}
	return w.compareKeys(w.slab.at(a.i), w.slab.at(b.i))
}

// compareEntries orders slab indices as Advance hands deadlines out: by
// At, then key.
func (w *Wheel) compareEntries(i, j int32) int {
	e, f := w.slab.at(i), w.slab.at(j)
	if c := cmp.Compare(e.at, f.at); c != 0 {
		return c
	}
	return w.compareKeys(e, f)
}

// compareKeys breaks a tie of At: by key.
func (w *Wheel) compareKeys(e, f *entry) int {
	return strings.Compare(w.slab.keyView(e), w.slab.keyView(f))
}
