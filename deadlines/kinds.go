package deadlines

import (
	"math"
	"strings"
)

// kinds interns Kind strings to small integers, so an entry holds two bytes
// instead of a string header. A wheel has few kinds (one per action); they
// are kept for the wheel's lifetime.
type kinds struct {
	names []string // by id; id 0 is ""
	ids   map[string]uint16
	last  uint16 // the id most recently interned: bursts repeat one kind
}

func newKinds() kinds {
	return kinds{names: []string{""}, ids: map[string]uint16{"": 0}}
}

// intern returns the id of kind, adding it if it is new.
func (k *kinds) intern(kind string) uint16 {
	if k.names[k.last] == kind {
		return k.last
	}
	id, ok := k.ids[kind]
	if !ok {
		if len(k.names) > math.MaxUint16 {
			panic("deadlines: too many distinct kinds")
		}
		kind = strings.Clone(kind) // do not pin a caller's larger buffer
		id = uint16(len(k.names))
		k.names = append(k.names, kind)
		k.ids[kind] = id
	}
	k.last = id
	return id
}

func (k *kinds) name(id uint16) string { return k.names[id] }
