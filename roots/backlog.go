package roots

import (
	"bytes"
	"slices"

	"github.com/wakewheel/wakewheel/store"
)

// backlog is a root's persisted, de-duplicated FIFO of changed paths.
//
// Entries are stored in records (nsQueue, "<id>/<seq>"), each holding up
// to recordPaths consecutive entries from seq on, their paths separated
// by NUL (which no path holds; a record written before records held more
// than one path is a record of one). Records are written by a capture
// (synced, in the same batch as the since_ref they account for) and
// deleted once their last entry was ingested, or written again from the
// first entry left when a batch ended inside one (unsynced: a power loss
// can only hand them to ingest again). The memory copy is the entries in
// seq order; a batch handed to ingest is always a prefix of it (inflight
// entries), and only one batch is out at a time.
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
	rec  uint64 // the seq of the record holding it
	path string
}

// recordPaths is the most entries one record holds: a 100,000-path
// checkout is ~100 records in its synced write, not 100,000 (goleveldb
// spent ~3 µs per record of it); a batch that ends inside a record
// rewrites the rest of it (at most this many paths).
const recordPaths = 1024

func newBacklog(id uint64) *backlog {
	return &backlog{id: id, waiting: make(map[string]uint64), next: 1}
}

// load adds the entries of a record read from the store (in key order, so
// seq order). It reports whether the record holds any entry now: a record
// whose every path was already waiting in an earlier one (a duplicate
// left by an interrupted failure path) holds none, so no batch would ever
// delete it; the caller deletes it (its paths stay queued in the earlier
// records, so nothing is lost).
func (b *backlog) load(seq uint64, val []byte) (kept bool) {
	rec := seq
	for {
		i := bytes.IndexByte(val, 0)
		p := val
		if i >= 0 {
			p = val[:i]
		}
		path := string(p)
		if _, dup := b.waiting[path]; !dup { // a duplicate from an interrupted failure path: keep the first
			b.entries = append(b.entries, entry{seq: seq, rec: rec, path: path})
			b.waiting[path] = seq
			kept = true
		}
		b.next = max(b.next, seq+1)
		if i < 0 {
			return kept
		}
		val, seq = val[i+1:], seq+1
	}
}

// Len is the number of paths in the backlog, in flight included.
func (b *backlog) Len() int { return len(b.entries) }

// plan returns the entries that appending paths would add, skipping
// paths already waiting and repeated ones. Nothing changes until commit;
// records writes them.
func (b *backlog) plan(paths []string) []entry {
	add := make([]entry, 0, len(paths))
	var seen map[string]struct{}
	if !strictlySorted(paths) { // a detection's set is sorted and unique: no map
		seen = make(map[string]struct{}, len(paths))
	}
	seq := b.next
	for _, p := range paths {
		if _, ok := b.waiting[p]; ok {
			continue
		}
		if seen != nil {
			if _, ok := seen[p]; ok {
				continue
			}
			seen[p] = struct{}{}
		}
		add = append(add, entry{seq: seq, path: p})
		seq++
	}
	return add
}

func strictlySorted(s []string) bool {
	for i := 1; i < len(s); i++ {
		if s[i-1] >= s[i] {
			return false
		}
	}
	return true
}

// records returns the ops that write planned entries (consecutive seqs)
// as records of up to recordPaths entries, and sets each entry's record.
func (b *backlog) records(add []entry) []store.Op {
	ops := make([]store.Op, 0, (len(add)+recordPaths-1)/recordPaths)
	for len(add) > 0 {
		es := add[:min(len(add), recordPaths)]
		add = add[len(es):]
		size := 0
		for _, e := range es {
			size += len(e.path) + 1
		}
		val := make([]byte, 0, size)
		for i := range es {
			if i > 0 {
				val = append(val, 0)
			}
			val = append(val, es[i].path...)
			es[i].rec = es[0].seq
		}
		ops = append(ops, store.PutOp(nsQueue, queueKey(b.id, es[0].seq), val))
	}
	return ops
}

// commit applies entries planned by plan, after their write succeeded.
func (b *backlog) commit(add []entry) {
	if len(b.waiting) == 0 && len(add) > len(b.entries) {
		b.waiting = make(map[string]uint64, len(add)) // sized once, not grown
	}
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
// and the returned ops delete the records whose last entry left and
// rewrite the one it ended inside; otherwise they wait again at the front
// (a path added again meanwhile keeps its newer entry too).
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
	var ops []store.Op
	for i, e := range batch {
		if i+1 == len(b.entries) || b.entries[i+1].rec != e.rec {
			ops = append(ops, store.DeleteOp(nsQueue, queueKey(b.id, e.rec)))
		}
	}
	if n := len(batch); n < len(b.entries) && b.entries[n].rec == batch[n-1].rec {
		// The batch ended inside a record: the record is written again
		// from its first entry left, so that a crash hands again none of
		// what was ingested.
		old, rest := batch[n-1].rec, b.entries[n:]
		for i, e := range rest {
			if e.rec != old {
				rest = rest[:i]
				break
			}
		}
		ops = append(ops, store.DeleteOp(nsQueue, queueKey(b.id, old)))
		ops = append(ops, b.records(rest)...)
	}
	clear(b.entries[:len(batch)]) // let the strings go
	b.entries = b.entries[len(batch):]
	return ops
}

// deleteAll returns the ops that delete every record of the backlog.
func (b *backlog) deleteAll() []store.Op {
	var ops []store.Op
	for i, e := range b.entries {
		if i == 0 || b.entries[i-1].rec != e.rec {
			ops = append(ops, store.DeleteOp(nsQueue, queueKey(b.id, e.rec)))
		}
	}
	return ops
}
