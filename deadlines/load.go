package deadlines

import (
	"iter"
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
// megabytes, and an insert in order of arrival misses the caches every
// time. So while the keys come in strictly ascending order (as a store
// reads them: then no key can repeat, and none needs looking up) the
// Loader only notes each entry's hash and slab index, in one of
// loadBuckets by the hash's top bits, and enters them in the index
// bucket by bucket: the inserts of a bucket touch one 1/loadBuckets
// stretch of the table, which stays in the cache. Once Expect has sized
// the index it does so every flushEvery entries, while the load goes on;
// without Expect, at the end. A key out of order ends that: the index is
// completed then, and every later deadline is looked up and inserted one
// by one (a repeated key replaces its entry).
//
// A Loader is the wheel's only user until Wheel: one goroutine.
type Loader struct {
	w       *Wheel
	ordered bool   // every key so far above the one before: the index waits
	last    string // the key added last, while ordered
	pending [loadBuckets]pendingHashes
	waiting int     // entries in pending
	spare   []chunk // emptied chunks of pending, for reuse
	room    int     // keys the index has room for (index.reserve's rule); 0: not sized yet
	entered int32   // while ordered, the slab indices below this are in the index
}

// pendingHashes is one bucket of entries waiting for the index, in chunks
// of pendingChunk (so a bucket grows without copying, and at most a chunk
// of it is slack).
type pendingHashes []chunk

// chunk holds entries waiting for the index: the hash in the high 32
// bits, the slab index in the low.
type chunk []uint64

const (
	loadBuckets  = 256 // by a hash's top 8 bits
	pendingChunk = 512
	// flushEvery is how many waiting entries a sized index takes in at
	// once: 512 KiB of them, 256 a bucket, each bucket's within its 1/256
	// of the table.
	flushEvery = 1 << 16
)

// NewLoader starts an empty wheel as NewWheel does.
func NewLoader(tick time.Duration, start time.Time) *Loader {
	return &Loader{w: NewWheel(tick, start), ordered: true}
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

// resize makes the index one for n keys holding the entries entered so
// far (the slab indices below l.entered: a load in order frees none).
func (l *Loader) resize(n int) {
	w := l.w
	w.index.reserve(n)
	l.room = roomOf(len(w.index.groups))
	for i := int32(0); i < l.entered; i++ {
		e := w.slab.at(i)
		w.index.insertAt(&w.slab, i, e.hash, w.index.freeSlot(e.hash))
	}
}

// Add enters one deadline, replacing an earlier one of its key.
func (l *Loader) Add(d Deadline) {
	w := l.w
	h := w.hash(d.Key)
	if l.ordered && (w.slab.live == 0 || d.Key > l.last) {
		i := l.link(d, h)
		l.last = d.Key
		b := &l.pending[h>>(32-8)]
		if n := len(*b); n == 0 || len((*b)[n-1]) == pendingChunk {
			*b = append(*b, l.newChunk())
		}
		c := &(*b)[len(*b)-1]
		*c = append(*c, uint64(h)<<32|uint64(uint32(i)))
		if l.waiting++; l.room > 0 && l.waiting >= flushEvery {
			l.flush()
		}
		return
	}
	if l.ordered {
		l.flush()
		l.ordered, l.last = false, ""
	}
	j, old, pos := w.index.find(&w.slab, d.Key, h)
	if j != nilIdx { // an earlier deadline of the same key: this one replaces it
		w.unlink(old)
		w.drop(j, old)
	}
	i := l.link(d, h)
	if j != nilIdx {
		w.index.groups[pos/groupSize].setSlot(pos%groupSize, i)
		return
	}
	w.index.insertAt(&w.slab, i, h, pos)
}

func (l *Loader) newChunk() chunk {
	if n := len(l.spare); n > 0 {
		c := l.spare[n-1]
		l.spare = l.spare[:n-1]
		return c
	}
	return make(chunk, 0, pendingChunk)
}

// link makes the entry of d, with key hash h, and links it into its slot.
func (l *Loader) link(d Deadline, h uint32) int32 {
	w := l.w
	i := w.slab.alloc()
	e := w.slab.at(i)
	e.key, e.hash, e.kind = d.Key, h, w.kinds.intern(d.Kind)
	w.kinds.count(noKind, e.kind)
	e.at, e.since = w.clampAt(toNanos(d.At)), sinceNanos(d.Since)
	w.setPayload(i, e, d.Payload)
	w.link(i, e, w.bucketFor(w.dueTick(e.at)))
	return i
}

// flush enters the waiting entries in the index, bucket by bucket, sizing
// it first when it has no room for them (twice what it held, so a low
// estimate costs a few resizes).
func (l *Loader) flush() {
	w := l.w
	if live := w.slab.live; live > l.room {
		l.resize(max(live, 2*l.room))
	}
	for b := range l.pending {
		for _, c := range l.pending[b] {
			for _, p := range c {
				h, i := uint32(p>>32), int32(uint32(p))
				w.index.insertAt(&w.slab, i, h, w.index.freeSlot(h))
			}
			l.spare = append(l.spare, c[:0])
		}
		l.pending[b] = l.pending[b][:0]
	}
	l.waiting, l.entered = 0, w.slab.n
}

// Len is the number of deadlines held so far.
func (l *Loader) Len() int { return l.w.Len() }

// Wheel ends the load and returns the wheel. The Loader must not be used
// after.
func (l *Loader) Wheel() *Wheel {
	if l.ordered {
		l.flush()
		if live := l.w.slab.live; live <= roomOf(len(l.w.index.groups)/2) { // an estimate too large
			l.resize(live)
		}
	}
	w := l.w
	l.w = nil
	w.hints.fit(len(w.index.groups) * groupSize)
	return w
}
