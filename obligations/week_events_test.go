package obligations_test

import (
	"time"

	ob "github.com/wakewheel/wakewheel/obligations"
)

// Helpers and the event queue of the week simulation.

func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

func indexOf(c ob.Class) int {
	for i, k := range ob.Classes {
		if k == c {
			return i
		}
	}
	return -1
}

type evKind int

const (
	evPost evKind = iota
	evAck
	evRestart
)

type event struct {
	at    time.Time
	order int
	kind  evKind
	lane  string
	class ob.Class
	upto  uint64
}

// events is a min-heap by (at, order): deterministic for equal times.
type events []*event

func (q events) Len() int { return len(q) }
func (q events) Less(i, j int) bool {
	if !q[i].at.Equal(q[j].at) {
		return q[i].at.Before(q[j].at)
	}
	return q[i].order < q[j].order
}
func (q events) Swap(i, j int) { q[i], q[j] = q[j], q[i] }
func (q *events) Push(x any)   { *q = append(*q, x.(*event)) }
func (q *events) Pop() any {
	old := *q
	e := old[len(old)-1]
	*q = old[:len(old)-1]
	return e
}
