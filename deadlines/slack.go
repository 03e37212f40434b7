package deadlines

import "time"

// Timer coalescing (timer slack): the runner pays about the same CPU for a
// wake whatever the number of deadlines it fires, and the deadlines of a
// burst are spread over the tick they fall due in. Wake lets it sleep once
// for the deadlines that share a tick, as Linux's timer slack and the
// tolerable delay of macOS and Windows timers do, while a deadline alone in
// its tick still wakes it at its own instant.

// Wake returns the instant to wake at so that the deadlines due next fire
// at most slack after their At, never before it; false when nothing is
// pending. It is Next, unless the list that holds Next's deadline (the
// overdue list, or else the first occupied slot of level 0: the deadlines
// due in one base tick) holds another deadline too. Then it is
//
//	min(Next + slack, E)
//
// where E is the end of that tick (the last instant due in it: the slot's
// due tick, or the current tick for the overdue list). Every deadline of
// that list is due by E, so an Advance to the instant returned fires each
// one due by then at most slack after its At, and none early; with a slack
// of a tick or more the instant is E and the whole tick fires in one wake.
// The ones left (slack under a tick) are asked about again on the next
// call. A slack of 0 or less gives Next exactly, and so does a deadline
// alone in its list, or Next in a coarser level (a cascade's instant): a
// lone deadline waits for nobody. So does a backlog (backlog.go): while
// one waits, Wake is Next, its first deadline's At.
//
// Its cost is Next's and O(1) besides: the list's head and the head's
// successor, never a walk, so a burst of pushes costs no more per call.
func (w *Wheel) Wake(slack time.Duration) (time.Time, bool) {
	next, ok := w.Next()
	if !ok || slack <= 0 || w.heads[bucketBacklog] != nilIdx {
		return next, ok // a backlog is due now: its next run waits for nobody
	}
	head, end := w.heads[bucketOverdue], w.cur
	if head == nilIdx {
		l, s, _ := w.firstSlot() // occupied: Next found a deadline
		if l != 0 {
			return next, true // a cascade's instant, not a deadline's
		}
		head, end = w.heads[s], w.slotStart(0, s)
	}
	if w.slab.at(head).next == nilIdx {
		return next, true // alone in its tick
	}
	return time.Unix(0, min(addNanos(toNanos(next), slack), w.tickNanos(end))), true
}
