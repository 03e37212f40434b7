package scheduler

import "github.com/wakewheel/wakewheel/deadlines"

// keyQueue is a FIFO of keys with dirty and processing sets: a key is queued
// at most once, never handed out twice at once, and a key added while it is
// being processed is handed out once more after Done.
type keyQueue struct {
	order      []string
	dirty      map[string]deadlines.Deadline // queued or re-queued, with the latest fired deadline
	processing map[string]struct{}
}

func newKeyQueue() *keyQueue {
	return &keyQueue{dirty: map[string]deadlines.Deadline{}, processing: map[string]struct{}{}}
}

// Add queues d's key (or refreshes the deadline of a key already queued).
func (q *keyQueue) Add(d deadlines.Deadline) {
	_, queued := q.dirty[d.Key]
	q.dirty[d.Key] = d
	if queued {
		return
	}
	if _, busy := q.processing[d.Key]; busy {
		return // handed out again by Done
	}
	q.order = append(q.order, d.Key)
}

// Get hands out the next key that is not being processed.
func (q *keyQueue) Get() (deadlines.Deadline, bool) {
	if len(q.order) == 0 {
		return deadlines.Deadline{}, false
	}
	key := q.order[0]
	q.order[0] = ""
	q.order = q.order[1:]
	d := q.dirty[key]
	delete(q.dirty, key)
	q.processing[key] = struct{}{}
	return d, true
}

// Done ends processing of key; if it was added meanwhile it is queued again.
func (q *keyQueue) Done(key string) {
	delete(q.processing, key)
	if _, again := q.dirty[key]; again {
		q.order = append(q.order, key)
	}
}

// Len is the number of keys waiting (not counting those being processed).
func (q *keyQueue) Len() int { return len(q.order) }

// Processing reports whether key is being processed.
func (q *keyQueue) Processing(key string) bool {
	_, ok := q.processing[key]
	return ok
}

// requeue ends processing of d's key and queues it again at once, unless a
// newer firing of it is already waiting (that one runs instead).
func (q *keyQueue) requeue(d deadlines.Deadline) {
	if _, again := q.dirty[d.Key]; !again {
		q.dirty[d.Key] = d
	}
	q.Done(d.Key)
}
