package scheduler

import (
	"iter"
	"slices"

	"github.com/wakewheel/wakewheel/deadlines"
)

// The kind index. A restart's resume and a config reload's re-timing visit
// the deadlines of a few kinds (a root's leases, its bursts and reconciles,
// a lane's redeliveries), which are a handful among what may be a million
// reminders. The engine keeps the pending keys of the kinds named in
// Options.Indexed, as the wheel gains and loses them, so that OfKind
// visits those and nothing else: O(indexed) on the loop, not O(pending).
// Index only kinds with few deadlines; a kind that is not indexed is still
// listed by OfKind, by a visit of every pending deadline.
type kindIndex struct {
	kinds []string          // the indexed kinds
	keys  map[string]string // pending key of an indexed kind → its kind
}

func newKindIndex(kinds []string) kindIndex {
	return kindIndex{kinds: slices.Clone(kinds), keys: map[string]string{}}
}

func (x *kindIndex) indexes(kind string) bool {
	for _, k := range x.kinds { // a handful: no map lookup
		if k == kind {
			return true
		}
	}
	return false
}

// pending notes that key is pending with kind.
func (x *kindIndex) pending(key, kind string) {
	if x.indexes(kind) {
		x.keys[key] = kind
	} else if len(x.keys) > 0 {
		delete(x.keys, key) // a key may change kind
	}
}

// gone notes that key is no longer pending.
func (x *kindIndex) gone(key string) {
	if len(x.keys) > 0 {
		delete(x.keys, key)
	}
}

// OfKind yields the pending deadlines of the given kinds, in no order. For
// kinds in Options.Indexed it visits only theirs; a kind not indexed costs
// a visit of every pending deadline. The engine must not change during the
// iteration.
func (e *Engine) OfKind(kinds ...string) iter.Seq[deadlines.Deadline] {
	return func(yield func(deadlines.Deadline) bool) {
		var unindexed []string
		for _, k := range kinds {
			if !e.kinds.indexes(k) {
				unindexed = append(unindexed, k)
			}
		}
		for key, kind := range e.kinds.keys {
			if !slices.Contains(kinds, kind) {
				continue
			}
			if d, ok := e.wheel.Get(key); ok && !yield(d) {
				return
			}
		}
		if len(unindexed) == 0 {
			return
		}
		for d := range e.wheel.All() {
			if slices.Contains(unindexed, d.Kind) && !yield(d) {
				return
			}
		}
	}
}
