package deadlines

import "time"

// The backlog: the deadlines that fell due but that an AdvanceAtMost did
// not fire, because more were due than its caller could take. A daemon
// restarted after downtime, or a host resumed from sleep, can find a
// million due at once; one Advance would hand all of them out in one call
// (a second of the loop's time at a million, and a Deadline each, 104
// bytes and a key, held until they run). AdvanceAtMost hands out the
// earliest max, and the others stay pending in the wheel, where a deadline
// costs what it cost before it fell due, until the caller asks for more.
//
// The backlog is a list like a slot's, in (At, Key) order, its first the
// earliest; the wheel keeps its last too. Only AdvanceAtMost adds to it,
// at its end: what it adds comes from the slots, whose deadlines are due
// after every deadline already in it (they are due after the current tick,
// it at or before), or from the overdue list. A deadline pushed into the
// past while a backlog waits may be due before the backlog's last; such a
// deadline waits on the overdue list instead, and each AdvanceAtMost
// merges the two. So taking from the backlog is O(max), adding to it
// O(1) a deadline, and nothing walks it. A deadline in the backlog is
// pending as any other: Cancel, Push, Extend and Reset find it and take it
// out of the list in O(1), to the list or slot of its new At.

// AdvanceAtMost is Advance that fires at most max deadlines (max < 1 fires
// none and changes nothing): the earliest max of those due by now, in
// (At, Key) order, so that successive calls fire every due deadline in
// that order. The ones left stay pending and overdue, and Next is then
// their earliest At (or earlier). A call that finds no more due than max,
// and no backlog, is Advance.
func (w *Wheel) AdvanceAtMost(now time.Time, max int, due []Deadline) []Deadline {
	if max < 1 {
		return due
	}
	return w.advance(now, max, due)
}

// advance takes what is due by now and fires it all, or, with more than
// max or a backlog waiting, the earliest max of it and of the backlog.
func (w *Wheel) advance(now time.Time, max int, due []Deadline) []Deadline {
	ns := w.clampAt(toNanos(now))
	w.take(ns)
	if w.heads[bucketBacklog] == nilIdx && len(w.taken) <= max {
		return w.fireTaken(due)
	}
	t := w.taken
	w.sortTaken(t)
	fired, k := w.fired[:0], 0
	for len(fired) < max {
		b := w.heads[bucketBacklog]
		if b != nilIdx && w.slab.at(b).at > ns {
			b = nilIdx // a now earlier than the last one's: the backlog is due after it
		}
		if b == nilIdx && k == len(t) {
			break
		}
		if b != nilIdx && (k == len(t) || w.compareEntries(b, t[k]) < 0) {
			w.unlink(w.slab.at(b))
			fired = append(fired, b)
		} else {
			fired = append(fired, t[k])
			k++
		}
	}
	w.leave(t[k:])
	due = w.fire(fired, due)
	if cap(fired) > maxTakenKept {
		fired = nil
	}
	w.fired = fired[:0]
	w.keepTaken(t)
	return due
}

// leave puts the due entries t, in (At, Key) order, that an AdvanceAtMost
// did not fire: at the backlog's end, but those before its last on the
// overdue list (merged with it by the next call).
func (w *Wheel) leave(t []int32) {
	for _, i := range t {
		e := w.slab.at(i)
		if last := w.backlogTail; last != nilIdx && w.compareEntries(i, last) < 0 {
			w.link(i, e, bucketOverdue)
			continue
		}
		e.next, e.prev = nilIdx, w.backlogTail
		if w.backlogTail == nilIdx {
			w.heads[bucketBacklog] = i
		} else {
			w.slab.at(w.backlogTail).next = i
		}
		w.backlogTail, w.backlogLen = i, w.backlogLen+1
		e.setBucket(bucketBacklog)
	}
}

// orderOverdue moves the overdue list into the backlog, in (At, Key)
// order, once a load has filled it: the deadlines a store held past due,
// a million after a long enough downtime. Ordered here, while the daemon
// still answers that it is loading, they cost the engine's first
// AdvanceAtMost max of them, not a sort of all of them on its loop.
func (w *Wheel) orderOverdue() {
	t := w.taken[:0]
	for i := w.heads[bucketOverdue]; i != nilIdx; i = w.slab.at(i).next {
		t = append(t, i)
	}
	w.heads[bucketOverdue], w.overdueUnsorted = nilIdx, false
	w.sortTaken(t)
	w.leave(t)
	w.keepTaken(t)
}
