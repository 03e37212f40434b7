package deadlines

import (
	"iter"
	"strings"
	"time"
)

// Load returns a wheel holding the deadlines of ds, as if each had been
// Reset in turn (a later deadline of a key replaces an earlier one). It is
// a restart's reload; see Loader.
func Load(tick time.Duration, start time.Time, ds iter.Seq[Deadline]) *Wheel {
	l := NewLoader(tick, start)
	for d := range ds {
		l.Add(d)
	}
	return l.Wheel()
}

// A Loader builds the wheel of a restart one deadline at a time, doing
// only what a reload needs: each deadline is linked into its slot as it
// comes, with none of a Reset's bookkeeping for keys touched again soon
// (the hints are sized once, at the end, and start empty).
//
// The key index is what costs: a million keys hash all over a table of
// megabytes, and an insert in order of arrival misses the caches (and on a
// virtual machine the page tables) every time. So while the keys come in
// strictly ascending order (as a store reads them: then no key can repeat,
// and none needs looking up) the Loader only notes each entry's hash and
// slab index, and enters them flushEvery at a time sorted by their hashes'
// top 16 bits (a radix sort of two passes, counted as they come): the
// inserts then walk the table from its start to its end, each a line or
// two after the one before, which the processor fetches ahead. Once Expect
// has sized the index it does so while the load goes on; without Expect,
// at the end. A key out of order ends that: the index is completed then,
// and every later deadline is looked up and inserted one by one (a
// repeated key replaces its entry).
//
// A Loader is the wheel's only user until Wheel: one goroutine.
type Loader struct {
	w       *Wheel
	ordered bool  // every key so far above the one before: the index waits
	last    int32 // the entry added last, while ordered (its key the largest so far)
	// waiting holds the entries not yet in the index, in order of arrival:
	// the hash in the high 32 bits, the slab index in the low.
	waiting []uint64
	sorted  []uint64       // flush's: waiting sorted by the hash's second byte
	counts  *[2][256]int32 // waiting counted by the hash's second byte, and by its top byte
	room    int            // keys the index has room for (index.reserve's rule); 0: not sized yet
	entered int32          // while ordered, the slab indices below this are in the index
}

// flushEvery is how many waiting entries a sized index takes in at once:
// 1 MiB of them, a tenth of the table of a million keys, so the inserts
// of a flush fall a line or two apart (the more at once, the closer:
// measured against 2^16 and 2^18 a flush, BENCHMARKS.md).
const flushEvery = 1 << 17

// NewLoader starts an empty wheel as NewWheel does.
func NewLoader(tick time.Duration, start time.Time) *Loader {
	return &Loader{w: NewWheel(tick, start), ordered: true, counts: new([2][256]int32)}
}

// Expect says that the load will hold about n deadlines in all (an
// estimate: a store's, from the size of what it has read against the
// whole). While the keys come in order, it sizes the index for n, so that
// the entries go into it during the load rather than after; a later, larger
// estimate grows it. A wrong guess costs only time: too small, the index
// grows as the load goes on; too large, it is made the right size at the
// end.
func (l *Loader) Expect(n int) {
	if l.ordered && n > l.room {
		l.resize(n)
	}
}

// resize makes the index an empty one for n keys; the entries entered so
// far (the slab indices below l.entered: a load in order frees none) wait
// for the next flush again, to go in sorted with the rest.
func (l *Loader) resize(n int) {
	w := l.w
	w.index.reserve(n)
	l.room = roomOf(w.index.groups())
	for i := int32(0); i < l.entered; i++ {
		l.wait(w.slab.at(i).hash, i)
	}
	l.entered = 0
}

// wait notes entry i, with key hash h, for the next flush.
func (l *Loader) wait(h uint32, i int32) {
	l.waiting = append(l.waiting, uint64(h)<<32|uint64(uint32(i)))
	l.counts[0][uint8(h>>16)]++
	l.counts[1][h>>24]++
}

// Add enters one deadline, replacing an earlier one of its key. It keeps
// nothing of d.Key (a key the entry holds is copied into it, a longer one
// cloned), so the key may be a view of bytes the caller reuses after the
// call, as a store's load hands them; d.Payload is kept as given.
func (l *Loader) Add(d Deadline) {
	w := l.w
	h := w.hash(d.Key)
	if l.ordered && (w.slab.live == 0 || d.Key > w.slab.keyView(w.slab.at(l.last))) {
		i := l.link(d, h)
		l.last = i
		l.wait(h, i)
		if l.room > 0 && len(l.waiting) >= flushEvery {
			l.flush()
		}
		return
	}
	if l.ordered {
		l.flush()
		l.ordered = false
	}
	j, old, pos := w.index.find(&w.slab, d.Key, h)
	if j != nilIdx { // an earlier deadline of the same key: this one replaces it
		w.unlink(old)
		w.drop(j, old)
	}
	i := l.link(d, h)
	if j != nilIdx {
		w.index.setSlot(pos, i, h)
		return
	}
	w.index.insertAt(&w.slab, i, h, pos)
}

// link makes the entry of d, with key hash h, and links it into its slot.
func (l *Loader) link(d Deadline, h uint32) int32 {
	w := l.w
	i := w.slab.alloc()
	e := w.slab.at(i)
	key := d.Key
	if len(key) > inlineKey {
		key = strings.Clone(key)
	}
	w.slab.setKey(e, key)
	e.hash, e.kind = h, w.kinds.intern(d.Kind)
	w.kinds.count(noKind, e.kind)
	e.at, e.since = w.clampAt(toNanos(d.At)), sinceNanos(d.Since)
	w.setPayload(i, e, d.Payload)
	w.link(i, e, w.bucketFor(w.dueTick(e.at)))
	return i
}

// flush enters the waiting entries in the index in the order of their
// hashes' top 16 bits, sizing it first when it has no room for them (twice
// what it held, so a low estimate costs a few resizes).
func (l *Loader) flush() {
	w := l.w
	if live := w.slab.live; live > l.room {
		l.resize(max(live, 2*l.room))
	}
	if cap(l.sorted) < len(l.waiting) {
		l.sorted = make([]uint64, len(l.waiting))
	}
	// a radix sort by the hash's top 16 bits: by the second byte, then
	// (stably) by the first
	sorted := l.sorted[:len(l.waiting)]
	radixPass(sorted, l.waiting, &l.counts[0], 48)
	radixPass(l.waiting, sorted, &l.counts[1], 56)
	for _, p := range l.waiting {
		h, i := uint32(p>>32), int32(uint32(p))
		w.index.insertAt(&w.slab, i, h, w.index.freeSlot(h))
	}
	*l.counts = [2][256]int32{}
	l.waiting, l.entered = l.waiting[:0], w.slab.n
}

// radixPass puts the entries of src into dst in the order of their byte
// at bit shift, keeping the order of src among equal bytes; counts counts
// src by that byte.
func radixPass(dst, src []uint64, counts *[256]int32, shift uint) {
	at := int32(0)
	for b, n := range counts { // counts become each byte's start
		counts[b] = at
		at += n
	}
	for _, p := range src {
		c := &counts[uint8(p>>shift)]
		dst[*c] = p
		*c++
	}
}

// Len is the number of deadlines held so far.
func (l *Loader) Len() int { return l.w.Len() }

// Wheel ends the load and returns the wheel, the deadlines the store held
// past due in its backlog, ordered (orderOverdue). The Loader must not be
// used after.
func (l *Loader) Wheel() *Wheel {
	if l.ordered {
		l.flush()
		if live := l.w.slab.live; live <= roomOf(l.w.index.groups()/2) { // an estimate too large
			l.resize(live)
			l.flush()
		}
	}
	w := l.w
	l.w = nil
	w.hints.fit(w.index.groups() * groupSize)
	w.orderOverdue()
	return w
}
