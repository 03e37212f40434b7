package roots

import (
	"slices"

	"github.com/wakewheel/wakewheel/store"
)

// backlog is a root's persisted, de-duplicated FIFO of changed paths.
//
// Every entry is a store record (nsQueue, "<id>/<seq>"): entries are
// written by a capture (synced, in the same batch as the since_ref they
// account for) and deleted once their batch was ingested (unsynced: a
// power loss can only hand them to ingest again). The memory copy is the
// entries in seq order; a batch handed to ingest is always a prefix of it
// (inflight entries), and only one batch is out at a time.
//
// De-duplication: a path already waiting (queued, not in flight) is not
// added again. A path in the in-flight batch is added again, at the tail:
// it changed after its batch was cut, and that change must be ingested
// too.
//
// A backlog is guarded by the manager's mutex.
type backlog struct {
	id       uint64
	entries  []entry           // seq order; entries[:inflight] are out for ingest
	inflight int               // length of the batch out for ingest
	waiting  map[string]uint64 // path -> seq of its entry not in flight
	next     uint64            // seq of the next entry
}

type entry struct {
	seq  uint64
	path string
}

func newBacklog(id uint64) *backlog {
	return &backlog{id: id, waiting: make(map[string]uint64), next: 1}
}

// load adds an entry read from the store (in key order, so seq order).
func (b *backlog) load(seq uint64, path string) {
	if _, dup := b.waiting[path]; dup {
		return // a duplicate from an interrupted failure path: keep the first
	}
	b.entries = append(b.entries, entry{seq: seq, path: path})
	b.waiting[path] = seq
	b.next = max(b.next, seq+1)
}

// Len is the number of paths in the backlog, in flight included.
func (b *backlog) Len() int { return len(b.entries) }

// plan returns the store ops and the entries that appending paths would
// add, skipping paths already waiting. Nothing changes until commit.
func (b *backlog) plan(paths []string) ([]store.Op, []entry) {
	var ops []store.Op
	var add []entry
	seen := make(map[string]struct{}, len(paths))
	seq := b.next
	for _, p := range paths {
		if _, ok := b.waiting[p]; ok {
			continue
		}
		if _, ok := seen[p]; ok {
			continue
		}
		seen[p] = struct{}{}
		add = append(add, entry{seq: seq, path: p})
		ops = append(ops, store.PutOp(nsQueue, queueKey(b.id, seq), []byte(p)))
		seq++
	}
	return ops, add
}

// commit applies entries planned by plan, after their write succeeded.
func (b *backlog) commit(add []entry) {
	for _, e := range add {
		b.entries = append(b.entries, e)
		b.waiting[e.path] = e.seq
		b.next = max(b.next, e.seq+1)
	}
}

// take hands out the first n entries as the in-flight batch. It returns
// nil if a batch is already out or the backlog is empty.
func (b *backlog) take(n int) []entry {
	if b.inflight > 0 || len(b.entries) == 0 {
		return nil
	}
	n = min(n, len(b.entries))
	batch := slices.Clone(b.entries[:n])
	for _, e := range batch {
		if b.waiting[e.path] == e.seq {
			delete(b.waiting, e.path)
		}
	}
	b.inflight = n
	return batch
}

// done ends the in-flight batch. On success its entries leave the backlog
// and the returned ops delete their records; otherwise they wait again at
// the front (a path added again meanwhile keeps its newer entry too).
func (b *backlog) done(ok bool) []store.Op {
	batch := b.entries[:b.inflight]
	b.inflight = 0
	if !ok {
		for _, e := range batch {
			if _, again := b.waiting[e.path]; !again {
				b.waiting[e.path] = e.seq
			}
		}
		return nil
	}
	ops := make([]store.Op, len(batch))
	for i, e := range batch {
		ops[i] = store.DeleteOp(nsQueue, queueKey(b.id, e.seq))
	}
	clear(b.entries[:len(batch)]) // let the strings go
	b.entries = b.entries[len(batch):]
	return ops
}

// deleteAll returns the ops that delete every record of the backlog.
func (b *backlog) deleteAll() []store.Op {
	ops := make([]store.Op, len(b.entries))
	for i, e := range b.entries {
		ops[i] = store.DeleteOp(nsQueue, queueKey(b.id, e.seq))
	}
	return ops
}
