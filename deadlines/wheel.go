package deadlines

import (
	"iter"
	"math"
	"time"
)

// Wheel holds pending deadlines in a hierarchical timing wheel (see the
// package documentation and levels.go). It is not safe for concurrent use:
// one goroutine, the runner, owns it.
type Wheel struct {
	tick         int64   // base tick in nanoseconds
	minAt, maxAt int64   // instants are clamped to this span (see clampAt)
	maxTick      uint64  // the due tick of maxAt
	div          divider // divides by tick
	tickBase     uint64  // the biased tick number of minAt
	cur          uint64  // the current tick: every tick <= cur has been advanced through

	heads           [nBuckets + 2]int32 // list heads: the level slots, then overdue, then the backlog
	backlogTail     int32               // the backlog's last entry, or nilIdx (backlog.go)
	backlogLen      int                 // the backlog's length
	occupied        [levels]uint64      // a bit per non-empty slot
	levelMask       uint16              // a bit per level with a non-empty slot
	overdueUnsorted bool                // the overdue list may be out of At order

	slab     slab
	index    index
	hints    hints
	keyHash  keyHash
	kinds    kinds
	payloads map[int32][]byte // by slab index, for entries with hasPayload
	// recent is the entry found or added last (maybe freed since), or
	// nilIdx; recentEntry is its address in the slab (nil for nilIdx), so
	// that trying it costs no slab lookup; recentPos is its index position,
	// or noPos.
	recent      int32
	recentEntry *entry
	recentPos   uint32
	min         slotMin  // each slot's smallest entry, once Earliest found it
	span        span     // the instants of the slot re-armed in last
	taken       []int32  // the entries an Advance fires, until fireTaken (levels.go)
	firing      []firing // fireTaken's pairs, kept between calls like taken
	fired       []int32  // what an AdvanceAtMost fires of the backlog and taken (backlog.go)
}

// NewWheel returns an empty wheel with the given base tick (> 0), starting at start.
func NewWheel(tick time.Duration, start time.Time) *Wheel {
	if tick <= 0 {
		panic("deadlines: tick must be positive")
	}
	t := int64(tick)
	w := &Wheel{
		tick:   t,
		minAt:  (math.MinInt64/t + 1) * t,
		maxAt:  math.MaxInt64 / t * t,
		slab:   slab{free: nilIdx},
		recent: nilIdx, recentPos: noPos, backlogTail: nilIdx,
		span:    span{b: bucketFree},
		keyHash: newKeyHash(),
		kinds:   newKinds(),
	}
	for b := range w.heads {
		w.heads[b] = nilIdx
	}
	w.div = newDivider(uint64(t))
	w.tickBase = uint64(w.minAt/t) ^ bias
	w.maxTick = w.dueTick(w.maxAt)
	w.cur = w.floorTick(w.clampAt(toNanos(start)))
	return w
}

// Tick is the base tick.
func (w *Wheel) Tick() time.Duration { return time.Duration(w.tick) }

// Len is the number of pending deadlines.
func (w *Wheel) Len() int { return w.slab.live }

// Push makes key fire no later than at. It reports whether the pending At
// changed (created, or pulled earlier).
func (w *Wheel) Push(key, kind string, at time.Time, payload []byte) bool {
	ns, ok := fastNanos(at) // toNanos without a call
	if !ok {
		ns = clampedNanos(at)
	}
	ns = w.clampAt(ns)
	i, e, h, pos := w.lookup(key, false)
	if i == nilIdx {
		w.add(key, h, pos, w.kinds.intern(kind), ns, noSince, payload)
		return true
	}
	old := e.at
	if ns >= old {
		return false
	}
	e.at, e.since = ns, noSince
	w.setKind(e, w.kinds.intern(kind))
	w.setPayload(i, e, payload)
	w.rearm(i, e, old)
	return true
}

// Extend slides key's window: At = min(now+window, Since+cap), Since kept from
// the first extend. It returns the new At.
func (w *Wheel) Extend(key, kind string, now time.Time, window, cap time.Duration) time.Time {
	nowNs, ok := fastNanos(now) // toNanos without a call
	if !ok {
		nowNs = clampedNanos(now)
	}
	i, e, h, pos := w.lookup(key, true)
	if i != nilIdx && e.since != noSince { // the window goes on: the common case
		old := e.at
		e.at = w.clampAt(min(addNanos(nowNs, window), addNanos(e.since, cap)))
		if !w.stays(e) {
			w.rearm(i, e, old)
		}
		return time.Unix(0, e.at)
	}
	// A window starts now: a new key, or one pushed or reset (no Since).
	since := sinceNanos(now)
	base := since
	if base == noSince { // a zero now: the window starts at the zero time
		base = nowNs
	}
	at := w.clampAt(min(addNanos(nowNs, window), addNanos(base, cap)))
	if i == nilIdx {
		w.add(key, h, pos, w.kinds.intern(kind), at, since, nil)
		return time.Unix(0, at)
	}
	e.since = since
	w.setKind(e, w.kinds.intern(kind))
	old := e.at
	e.at = at
	w.rearm(i, e, old)
	return time.Unix(0, at)
}

// Reset sets d unconditionally.
func (w *Wheel) Reset(d Deadline) {
	ns := w.clampAt(toNanos(d.At))
	since := sinceNanos(d.Since)
	kind := w.kinds.intern(d.Kind)
	i, e, h, pos := w.lookup(d.Key, true)
	if i == nilIdx {
		w.add(d.Key, h, pos, kind, ns, since, d.Payload)
		return
	}
	old := e.at
	e.at, e.since = ns, since
	w.setKind(e, kind)
	w.setPayload(i, e, d.Payload)
	w.rearm(i, e, old)
}

// Cancel removes key and reports whether it was pending.
func (w *Wheel) Cancel(key string) bool {
	i, e, _, pos := w.lookup(key, true)
	if i == nilIdx {
		return false
	}
	if pos == noPos {
		pos = w.index.position(i, e.hash)
	}
	w.index.deleteAt(pos)
	w.unlink(e)
	w.drop(i, e)
	return true
}

// Get returns the pending deadline for key.
func (w *Wheel) Get(key string) (Deadline, bool) {
	i, e, _, _ := w.lookup(key, true)
	if i == nilIdx {
		return Deadline{}, false
	}
	return w.deadlineOf(i, e, key), true
}

// All yields every pending deadline, in no particular order. The wheel must
// not be changed during the iteration.
func (w *Wheel) All() iter.Seq[Deadline] {
	return func(yield func(Deadline) bool) {
		w.index.each(func(i int32) bool { return yield(w.deadline(i, w.slab.at(i))) })
	}
}

// lookup returns key's slab index and entry, and the index position when it
// is known (else noPos); or, when key is absent, nilIdx, and the hash and
// position that add needs. The entry found last is tried first, without
// hashing: a burst touches one key again and again, and a deadline is often
// cancelled or fired just after it was set; then, when hinted, the entry
// made after it (afterRecent) and the hints, which remember the keys found
// lately; then the index. Push, which mostly creates a deadline, skips
// those two, which cannot say that a key is absent, so that a new key
// costs one cache miss (its group's control bytes, index.go), not more.
//
// A key of 8 to 16 bytes, most of the engine's, is read once, as its first
// and last 8 bytes: the hash is made of them, and they compare the key with
// an entry's inline key in two loads of that entry's line (holdsShort), so
// this path calls only the index's walk. Other keys take lookupAny.
func (w *Wheel) lookup(key string, hinted bool) (i int32, e *entry, h, pos uint32) {
	n := len(key)
	if n < 8 || n > 16 {
		return w.lookupAny(key, hinted)
	}
	a, b := load64(key), load64(key[n-8:])
	if e := w.recentEntry; e != nil && e.holdsShort(n, a, b) { // a freed entry's key length is 0
		return w.recent, e, e.hash, w.recentPos
	}
	if hinted {
		if i, e := w.afterRecent(); e != nil && e.holdsShort(n, a, b) {
			w.recent, w.recentEntry, w.recentPos = i, e, noPos
			return i, e, e.hash, noPos
		}
	}
	h = w.keyHash.words(a, b, n)
	if hinted && len(w.hints.sets) != 0 {
		if i, e = w.hints.get(&w.slab, key, a, b, h); i != nilIdx {
			w.recent, w.recentEntry, w.recentPos = i, e, noPos
			return i, e, h, noPos
		}
	}
	i, e, pos = w.index.findHash(&w.slab, h)
	if i != nilIdx && !e.holdsShort(n, a, b) {
		i, e, pos = w.index.findKey(&w.slab, key, h)
	}
	w.found(i, e, h, pos)
	return i, e, h, pos
}

// lookupAny is lookup for a key of any length.
func (w *Wheel) lookupAny(key string, hinted bool) (i int32, e *entry, h, pos uint32) {
	if i, e, pos = w.lastFound(key); i != nilIdx {
		return i, e, e.hash, pos
	}
	if hinted {
		if i, e = w.afterRecent(); e != nil && w.holds(e, key) {
			w.recent, w.recentEntry, w.recentPos = i, e, noPos
			return i, e, e.hash, noPos
		}
	}
	h = w.hash(key)
	if hinted && len(w.hints.sets) != 0 { // key is not 8 to 16 bytes (lookup took those): get needs no words
		if i, e = w.hints.get(&w.slab, key, 0, 0, h); i != nilIdx {
			w.recent, w.recentEntry, w.recentPos = i, e, noPos
			return i, e, h, noPos
		}
	}
	i, e, pos = w.index.find(&w.slab, key, h)
	w.found(i, e, h, pos)
	return i, e, h, pos
}

// lastFound returns the entry found or added last, and its index position
// if known, when it holds key. The position stays valid until the index is
// rebuilt, which only add does, and add sets the entry found last anew.
// It compares before hashing, the last byte first (entry.mayHold): most
// keys that differ (one root's against another's, a lane's against the
// next) share their length and differ in their last bytes.
func (w *Wheel) lastFound(key string) (int32, *entry, uint32) {
	if e := w.recentEntry; e != nil && w.holds(e, key) {
		return w.recent, e, w.recentPos
	}
	return nilIdx, nil, noPos
}

// holds reports whether e is live and holds key, compared without a call
// first by its last byte (entry.mayHold), then in full.
func (w *Wheel) holds(e *entry, key string) bool {
	return e.mayHold(key) && w.slab.hasKey(e, key) && e.live()
}

// afterRecent is the entry made just after the one found or added last
// (live or not), or nilIdx and nil: the next to try when that one does not
// hold the key. Keys made in turn sit side by side in the slab, so a
// sweep over them in that order (a reconcile over the roots, a reload's
// deadlines re-armed) finds each next to the last, in a line the hardware
// prefetcher has streamed in, without the index's two lines.
func (w *Wheel) afterRecent() (int32, *entry) {
	if i := w.recent + 1; i > 0 && i < w.slab.n {
		return i, w.slab.at(i)
	}
	return nilIdx, nil
}

// found remembers what an index lookup found: as the entry found last,
// and in the hints.
func (w *Wheel) found(i int32, e *entry, h, pos uint32) {
	if i != nilIdx {
		w.recent, w.recentEntry, w.recentPos = i, e, pos
		if len(w.hints.sets) != 0 {
			w.hints.put(h, i)
		}
	}
}

// hash is key's hash (keyhash.go), computed once per call that needs it.
func (w *Wheel) hash(key string) uint32 { return w.keyHash.sum(key) }

// add creates the entry for a key that is not pending, at the index position
// find returned.
func (w *Wheel) add(key string, h, pos uint32, kind uint16, at, since int64, payload []byte) {
	i := w.slab.alloc()
	e := w.slab.at(i)
	w.slab.setKey(e, key)
	e.at, e.since, e.hash, e.kind = at, since, h, kind
	w.kinds.count(noKind, kind)
	w.setPayload(i, e, payload)
	gen := w.index.gen
	w.index.insertAt(&w.slab, i, h, pos)
	if w.index.gen != gen { // rebuilt: i is elsewhere, and the hints may grow
		pos = noPos
		w.hints.fit(w.index.groups() * groupSize)
	}
	w.recent, w.recentEntry, w.recentPos = i, e, pos
	w.link(i, e, w.bucketFor(w.dueTick(at)))
}

// drop frees entry i, which is out of the index and of every list.
func (w *Wheel) drop(i int32, e *entry) {
	if e.where&hasPayload != 0 {
		delete(w.payloads, i)
	}
	w.kinds.count(e.kind, noKind)
	w.slab.release(i, e)
}

// setKind changes the kind of a pending entry, keeping the counts.
func (w *Wheel) setKind(e *entry, kind uint16) {
	w.kinds.count(e.kind, kind)
	e.kind = kind
}

// ByKind yields each kind that has pending deadlines with their number.
// It costs O(kinds), not O(pending): the counts are kept as deadlines come
// and go.
func (w *Wheel) ByKind() iter.Seq2[string, int] {
	return func(yield func(string, int) bool) {
		for id, n := range w.kinds.pending {
			if n > 0 && !yield(w.kinds.names[id], n) {
				return
			}
		}
	}
}

func (w *Wheel) setPayload(i int32, e *entry, payload []byte) {
	switch {
	case payload != nil:
		if w.payloads == nil {
			w.payloads = map[int32][]byte{}
		}
		w.payloads[i] = payload
		e.where |= hasPayload
	case e.where&hasPayload != 0:
		delete(w.payloads, i)
		e.where &^= hasPayload
	}
}

// deadline rebuilds the public form of entry i, with its key copied out
// of the entry (an allocation for an inline key).
func (w *Wheel) deadline(i int32, e *entry) Deadline {
	return w.deadlineOf(i, e, w.slab.key(e))
}

// deadlineOf is deadline with the key given: Get hands back the caller's
// own string, equal to the entry's, and allocates nothing.
func (w *Wheel) deadlineOf(i int32, e *entry, key string) Deadline {
	d := Deadline{
		Key:   key,
		Kind:  w.kinds.name(e.kind),
		At:    time.Unix(0, e.at),
		Since: sinceTime(e.since),
	}
	if e.where&hasPayload != 0 {
		d.Payload = w.payloads[i]
	}
	return d
}
