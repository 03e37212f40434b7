package deadlines

// The overdue list holds the deadlines whose due tick is not after the
// wheel's current tick and that are not in the backlog (backlog.go: those
// a load found past due, and those an AdvanceAtMost left): pushed into the
// past, or due in the tick an Advance stopped inside (At after now, but at or before
// the boundary now was rounded up to), and those pushed into that tick
// since. An Advance fires the ones whose At is by its now: all of them once
// now reaches the current tick's start. A caller gets to each by advancing
// to Next, which returns the earliest overdue At. For that the list is
// sorted by At when needed (insertions mark it unsorted unless they keep
// the order), in place, so draining n overdue deadlines one Next at a time
// costs O(n log n), not a scan per step, and allocates nothing.

// Overdue is the number of pending deadlines due at or before the current
// tick: after a load, those the store held past due; after an AdvanceAtMost
// that fired fewer than were due, those it left (the backlog's length,
// kept, and the overdue list's, walked: O(1) after a load, not a walk of a
// million). After an Advance that stopped inside a tick it includes those
// due later in that tick.
func (w *Wheel) Overdue() int {
	n := w.backlogLen
	for i := w.heads[bucketOverdue]; i != nilIdx; i = w.slab.at(i).next {
		n++
	}
	return n
}

// firstDue returns the entry with the smallest At of the overdue list and
// the backlog, whose first is its earliest; false if both are empty.
func (w *Wheel) firstDue() (int32, bool) {
	b := w.heads[bucketBacklog]
	if w.heads[bucketOverdue] == nilIdx {
		return b, b != nilIdx
	}
	w.sortOverdue()
	o := w.heads[bucketOverdue]
	if b != nilIdx && w.slab.at(b).at < w.slab.at(o).at {
		return b, true
	}
	return o, true
}

// takeOverdue takes the overdue entries whose At is <= ns out of the list,
// for fireTaken.
func (w *Wheel) takeOverdue(ns int64) {
	if ns >= w.tickNanos(w.cur) { // every overdue At is by the current tick's start
		for i := w.heads[bucketOverdue]; i != nilIdx; i = w.slab.at(i).next {
			w.taken = append(w.taken, i)
		}
		w.heads[bucketOverdue] = nilIdx
		return
	}
	w.sortOverdue()
	for i := w.heads[bucketOverdue]; i != nilIdx; i = w.heads[bucketOverdue] {
		e := w.slab.at(i)
		if e.at > ns {
			break
		}
		w.unlink(e)
		w.taken = append(w.taken, i)
	}
}

// sortOverdue puts the overdue list in At order, if it is not already: a
// bottom-up merge sort of the list's own links (runs of 1, 2, 4, ...
// merged pairwise until one run is left), then the back links set again.
func (w *Wheel) sortOverdue() {
	head := w.heads[bucketOverdue]
	if !w.overdueUnsorted || head == nilIdx {
		w.overdueUnsorted = false
		return
	}
	for width := 1; ; width *= 2 {
		merged, tail, runs := nilIdx, nilIdx, 0
		for p := head; p != nilIdx; runs++ {
			q, np := p, 0
			for np < width && q != nilIdx {
				q, np = w.slab.at(q).next, np+1
			}
			nq := width
			for np > 0 || nq > 0 && q != nilIdx {
				var i int32
				if np == 0 || nq > 0 && q != nilIdx && w.slab.at(q).at < w.slab.at(p).at {
					i, q, nq = q, w.slab.at(q).next, nq-1
				} else {
					i, p, np = p, w.slab.at(p).next, np-1
				}
				if tail == nilIdx {
					merged = i
				} else {
					w.slab.at(tail).next = i
				}
				tail = i
			}
			p = q
		}
		w.slab.at(tail).next = nilIdx
		head = merged
		if runs <= 1 {
			break
		}
	}
	prev := nilIdx
	for i := head; i != nilIdx; i = w.slab.at(i).next {
		w.slab.at(i).prev = prev
		prev = i
	}
	w.heads[bucketOverdue] = head
	w.overdueUnsorted = false
}
