package deadlines

import (
	"iter"
	"time"
)

// Load returns a wheel holding the deadlines of ds, as if each had been
// Reset in turn (a later deadline of a key replaces an earlier one). It is
// a restart's reload: the entries are linked as they come, and the key
// index is built once, at its final size, instead of growing step by step.
func Load(tick time.Duration, start time.Time, ds iter.Seq[Deadline]) *Wheel {
	w := NewWheel(tick, start)
	for d := range ds {
		i := w.slab.alloc()
		e := w.slab.at(i)
		e.key, e.hash, e.kind = d.Key, w.hash(d.Key), w.kinds.intern(d.Kind)
		w.kinds.count(noKind, e.kind)
		e.at, e.since = w.clampAt(toNanos(d.At)), sinceNanos(d.Since)
		w.setPayload(i, e, d.Payload)
		w.link(i, e, w.bucketFor(w.dueTick(e.at)))
	}
	w.index.reserve(w.slab.live)
	for i := int32(0); i < w.slab.n; i++ {
		e := w.slab.at(i)
		j, old, pos := w.index.find(&w.slab, e.key, e.hash)
		if j != nilIdx { // an earlier deadline of the same key: this one replaces it
			w.unlink(old)
			w.drop(j, old)
			w.index.groups[pos/groupSize].setSlot(pos%groupSize, i)
			continue
		}
		w.index.insertAt(&w.slab, i, e.hash, pos)
	}
	w.hints.fit(len(w.index.groups) * groupSize)
	return w
}
