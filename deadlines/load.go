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
// megabytes, and an insert in hash order of arrival misses the caches
// every time. So while the keys come in strictly ascending order (as a
// store reads them: then no key can repeat, and none needs looking up)
// the Loader only notes each entry's hash and slab index, in one of
// loadBuckets by the hash's top bits, and builds the index at the end,
// bucket by bucket: the inserts of a bucket touch one 1/loadBuckets
// stretch of the table, which stays in the cache. A key out of order ends
// that: the index is built then, and every later deadline is looked up
// and inserted one by one (a repeated key replaces its entry).
//
// A Loader is the wheel's only user until Wheel: one goroutine.
type Loader struct {
	w       *Wheel
	ordered bool   // every key so far above the one before: the index waits
	last    string // the key added last, while ordered
	pending [loadBuckets]pendingHashes
}

// pendingHashes is one bucket of entries waiting for the index: the hash
// in the high 32 bits, the slab index in the low, in chunks of
// pendingChunk (so a bucket grows without copying, and at most a chunk of
// it is slack).
type pendingHashes [][]uint64

const (
	loadBuckets  = 256 // by a hash's top 8 bits
	pendingChunk = 512
)

// NewLoader starts an empty wheel as NewWheel does.
func NewLoader(tick time.Duration, start time.Time) *Loader {
	return &Loader{w: NewWheel(tick, start), ordered: true}
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
			*b = append(*b, make([]uint64, 0, pendingChunk))
		}
		c := &(*b)[len(*b)-1]
		*c = append(*c, uint64(h)<<32|uint64(uint32(i)))
		return
	}
	if l.ordered {
		l.buildIndex()
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

// buildIndex enters the pending entries in the index, at its final size
// for them, bucket by bucket, and ends the ordered part of the load.
func (l *Loader) buildIndex() {
	w := l.w
	w.index.reserve(w.slab.live)
	for b := range l.pending {
		for _, c := range l.pending[b] {
			for _, p := range c {
				h, i := uint32(p>>32), int32(uint32(p))
				w.index.insertAt(&w.slab, i, h, w.index.freeSlot(h))
			}
		}
		l.pending[b] = nil
	}
	l.ordered, l.last = false, ""
}

// Len is the number of deadlines held so far.
func (l *Loader) Len() int { return l.w.Len() }

// Wheel ends the load and returns the wheel. The Loader must not be used
// after.
func (l *Loader) Wheel() *Wheel {
	if l.ordered {
		l.buildIndex()
	}
	w := l.w
	l.w = nil
	w.hints.fit(len(w.index.groups) * groupSize)
	return w
}
