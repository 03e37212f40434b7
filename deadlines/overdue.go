package deadlines

import (
	"cmp"
	"slices"
)

// The overdue list holds the deadlines whose due tick is not after the
// wheel's current tick: pushed into the past, or reloaded after downtime.
// An Advance to the current tick or later fires them all. An Advance to an
// earlier time fires only those due by then; a caller gets there by
// advancing to Next, which returns the earliest overdue due tick. For that
// the list is sorted by At when needed (insertions mark it unsorted unless
// they keep the order), so draining n overdue deadlines one Next at a time
// costs O(n log n), not a scan per step.

// Overdue is the number of pending deadlines already due at the current
// tick (those a reload found past due, say): O(overdue), not O(pending).
func (w *Wheel) Overdue() int {
	n := 0
	for i := w.heads[bucketOverdue]; i != nilIdx; i = w.slab.at(i).next {
		n++
	}
	return n
}

// nextOverdue returns the earliest due tick on the overdue list; false if
// the list is empty.
func (w *Wheel) nextOverdue() (uint64, bool) {
	if w.heads[bucketOverdue] == nilIdx {
		return 0, false
	}
	w.sortOverdue()
	return w.dueTick(w.slab.at(w.heads[bucketOverdue]).at), true
}

// fireOverdue appends and removes the overdue entries due by limit.
func (w *Wheel) fireOverdue(limit uint64, due []Deadline) []Deadline {
	if limit >= w.cur { // every overdue entry is due by the current tick
		for i := w.heads[bucketOverdue]; i != nilIdx; {
			e := w.slab.at(i)
			next := e.next
			due = w.fire(i, e, due)
			i = next
		}
		w.heads[bucketOverdue] = nilIdx
		return due
	}
	w.sortOverdue()
	for i := w.heads[bucketOverdue]; i != nilIdx; i = w.heads[bucketOverdue] {
		e := w.slab.at(i)
		if w.dueTick(e.at) > limit {
			break
		}
		w.unlink(e)
		due = w.fire(i, e, due)
	}
	return due
}

// sortOverdue puts the overdue list in At order, if it is not already.
func (w *Wheel) sortOverdue() {
	if !w.overdueUnsorted {
		return
	}
	var order []int32
	for i := w.heads[bucketOverdue]; i != nilIdx; i = w.slab.at(i).next {
		order = append(order, i)
	}
	slices.SortFunc(order, func(a, b int32) int { return cmp.Compare(w.slab.at(a).at, w.slab.at(b).at) })
	w.heads[bucketOverdue] = nilIdx
	for _, i := range slices.Backward(order) {
		w.link(i, w.slab.at(i), bucketOverdue) // each new head is the earliest so far
	}
}
