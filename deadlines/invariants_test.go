package deadlines

import (
	"maps"
	"testing"
)

// checkInvariants walks the wheel's internals and fails t on the first
// broken invariant: every live entry is in the bucket its due tick maps to,
// the lists are well linked, the occupancy bits match the lists, and the
// index, the slab and the lists agree on what is pending.
func checkInvariants(t *testing.T, w *Wheel) {
	t.Helper()
	listed := 0
	for b := range uint16(bucketBacklog + 1) {
		prev := nilIdx
		for i := w.heads[b]; i != nilIdx; i = w.slab.at(i).next {
			e := w.slab.at(i)
			if e.bucket() != b || e.prev != prev {
				t.Fatalf("entry %d (%s): bucket %d prev %d, listed in %d after %d", i, w.slab.keyView(e), e.bucket(), e.prev, b, prev)
			}
			want := w.bucketFor(w.dueTick(e.at))
			if b == bucketBacklog { // due, in (At, Key) order
				if want != bucketOverdue {
					t.Fatalf("backlog entry %s is due after the current tick", w.slab.keyView(e))
				}
				if prev != nilIdx && w.compareEntries(prev, i) >= 0 {
					t.Fatalf("backlog entry %s comes after %s", w.slab.keyView(e), w.slab.keyView(w.slab.at(prev)))
				}
				want = b
			}
			if want != b {
				t.Fatalf("entry %s in bucket %d, belongs in %d", w.slab.keyView(e), b, want)
			}
			if j, _, _ := w.index.find(&w.slab, w.slab.keyView(e), e.hash); j != i {
				t.Fatalf("entry %s: index finds %d, want %d", w.slab.keyView(e), j, i)
			}
			prev = i
			listed++
		}
		if b < nBuckets {
			l, bit := b/slots, uint64(1)<<(b%slots)
			if (w.heads[b] != nilIdx) != (w.occupied[l]&bit != 0) {
				t.Fatalf("bucket %d: occupied bit disagrees with its list", b)
			}
		}
	}
	inBacklog := 0
	for i := w.heads[bucketBacklog]; i != nilIdx; i = w.slab.at(i).next {
		inBacklog++
	}
	if inBacklog != w.backlogLen {
		t.Fatalf("backlog of %d entries, its length kept as %d", inBacklog, w.backlogLen)
	}
	if (w.heads[bucketBacklog] == nilIdx) != (w.backlogTail == nilIdx) ||
		w.backlogTail != nilIdx && w.slab.at(w.backlogTail).next != nilIdx {
		t.Fatalf("backlog head %d, tail %d", w.heads[bucketBacklog], w.backlogTail)
	}
	if !w.overdueUnsorted {
		for i := w.heads[bucketOverdue]; i != nilIdx; i = w.slab.at(i).next {
			if e := w.slab.at(i); e.next != nilIdx && e.at > w.slab.at(e.next).at {
				t.Fatalf("overdue list marked sorted, but %s comes before an earlier deadline", w.slab.keyView(e))
			}
		}
	}
	for l := range uint16(levels) {
		if (w.occupied[l] != 0) != (w.levelMask&(1<<l) != 0) {
			t.Fatalf("level %d: levelMask disagrees with occupied", l)
		}
	}
	if listed != w.slab.live || listed != w.index.count || listed != w.Len() {
		t.Fatalf("%d listed, %d live in the slab, %d in the index", listed, w.slab.live, w.index.count)
	}
	byKind := map[string]int{}
	for d := range w.All() {
		byKind[d.Kind]++
	}
	counted := map[string]int{}
	for k, n := range w.ByKind() {
		counted[k] = n
	}
	if !maps.Equal(byKind, counted) {
		t.Fatalf("kind counts %v, pending by kind %v", counted, byKind)
	}
	if w.index.used > w.index.limit {
		t.Fatalf("index uses %d slots, limit %d", w.index.used, w.index.limit)
	}
	if n := w.index.nWrites; n > maxWrites {
		t.Fatalf("index holds back %d slot writes, at most %d", n, maxWrites)
	}
	for _, wr := range w.index.writes[:w.index.nWrites] {
		if g := wr.pos / groupSize; w.index.writesIn>>(g%64)&1 == 0 {
			t.Fatalf("a slot write held back for group %d is not marked in %#x", g, w.index.writesIn)
		}
	}
	if i := w.recent; i != nilIdx && w.recentEntry != w.slab.at(i) {
		t.Fatalf("the last entry found, %d, is remembered at the address of another", i)
	}
	if i := w.recent; i != nilIdx && w.slab.at(i).live() && w.recentPos != noPos {
		pos := w.recentPos
		if got := w.index.slot(pos); got != i {
			t.Fatalf("the last entry found, %d, is remembered at index position %d, which holds %d", i, pos, got)
		}
	}
	for set := range w.hints.sets {
		for _, v := range w.hints.sets[set] {
			if v == 0 {
				continue
			}
			i := int32(v&0xffffff) - 1
			if i >= w.slab.n {
				t.Fatalf("hint %#x in set %d: beyond the slab (%d entries)", v, set, w.slab.n)
			}
			// A hint may be stale, but one that names a pending entry of
			// its set and tag names the entry the index finds for that key.
			if e := w.slab.at(i); e.live() && e.hash&w.hints.mask == uint32(set) && (e.hash^v)&0xff000000 == 0 {
				if j, _, _ := w.index.find(&w.slab, w.slab.keyView(e), e.hash); j != i {
					t.Fatalf("hint names entry %d for %s, the index %d", i, w.slab.keyView(e), j)
				}
			}
		}
	}
}
