package deadlines

import (
	"math"
	"strings"
	"unsafe"
)

// kinds interns Kind strings to small integers, so an entry holds two bytes
// instead of a string header. A wheel has few kinds (one per action); they
// are kept for the wheel's lifetime.
//
// It also counts the pending entries of each kind, kept as entries are
// added, dropped or change kind, so counting by kind costs O(kinds), never
// O(pending).
type kinds struct {
	names   []string // by id; id 0 is ""
	pending []int    // by id: pending entries of that kind
	ids     map[string]uint16
	last    uint16 // the id most recently interned: bursts repeat one kind
	// lastName is the caller's own string for last: callers pass the same
	// constant again and again, and a string compared with itself is
	// equal without reading its bytes (names holds a copy). It keeps at
	// most that one string of a caller's alive.
	lastName string
}

func newKinds() kinds {
	return kinds{names: []string{""}, pending: []int{0}, ids: map[string]uint16{"": 0}}
}

// intern returns the id of kind, adding it if it is new. The kind
// interned last, passed again as the same string, costs no call.
func (k *kinds) intern(kind string) uint16 {
	if len(kind) == len(k.lastName) && unsafe.StringData(kind) == unsafe.StringData(k.lastName) {
		return k.last
	}
	return k.internAny(kind)
}

// internAny is intern for any string.
func (k *kinds) internAny(kind string) uint16 {
	if kind == k.lastName {
		return k.last
	}
	id, ok := k.ids[kind]
	if !ok {
		if len(k.names) >= noKind { // noKind is never an id
			panic("deadlines: too many distinct kinds")
		}
		name := strings.Clone(kind) // do not pin a caller's larger buffer
		id = uint16(len(k.names))
		k.names = append(k.names, name)
		k.pending = append(k.pending, 0)
		k.ids[name] = id
	}
	k.last, k.lastName = id, kind
	return id
}

func (k *kinds) name(id uint16) string { return k.names[id] }

// count moves one pending entry from kind id from to id to (both may be
// the same); noKind stands for "not pending".
func (k *kinds) count(from, to uint16) {
	if from == to {
		return
	}
	if from != noKind {
		k.pending[from]--
	}
	if to != noKind {
		k.pending[to]++
	}
}

// noKind is no kind id: count's "not pending".
const noKind = math.MaxUint16
