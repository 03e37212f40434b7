package deadlines

import "time"

// A wheel's slab, key index and hints grow with the most deadlines it has
// held, and they never shrink on their own: a wheel that held a million
// deadlines, and holds a few once they have fired (a daemon's drain after
// downtime), keeps the pages and tables of a million, some 75 MB. Compact
// builds it anew, the way a restart's load does (a Loader), once it is
// small in a large slab, so that its memory follows what it holds again.
//
// The rebuild costs O(Len) on its owner's goroutine, so it is done only
// while Len is at most compactMax: about half a millisecond, once for a
// shrink of at least compactRoom entries. A wheel that stays larger than
// that keeps its memory until it is smaller.
const (
	compactMax  = 4096
	compactRoom = 1 << 16 // 4 MiB of slab pages
)

// Compact rebuilds the wheel when it holds at most compactMax deadlines in
// a slab made for compactRoom or more, and reports whether it did. The
// wheel answers the same afterwards: the same deadlines, the same current
// tick, the ones due waiting in the backlog in (At, Key) order. What the
// old slab and tables held is garbage for the collector once it returns.
// Call it between other calls, never from inside an iteration of All.
func (w *Wheel) Compact() bool {
	return w.compactIf(compactMax, compactRoom)
}

// compactIf is Compact with its bounds given (the tests force a rebuild).
func (w *Wheel) compactIf(most, room int) bool {
	if w.slab.live > most || int(w.slab.n) < room {
		return false
	}
	l := NewLoader(time.Duration(w.tick), w.tickTime(w.cur))
	l.Expect(w.slab.live)
	for b := range w.heads { // the lists, not the index: a large index is slow to walk
		for i := w.heads[b]; i != nilIdx; {
			e := w.slab.at(i)
			l.Add(w.deadline(i, e))
			i = e.next
		}
	}
	*w = *l.Wheel()
	return true
}
