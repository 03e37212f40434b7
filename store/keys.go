package store

import (
	"encoding/binary"
	"errors"
	"strings"
)

// Key layout. Every record lives under a one-letter namespace so that each
// kind of record is one contiguous key range:
//
//	v/schema          schema version record (ASCII decimal)
//	v/sync            a counter written by Sync, so its batch is never empty
//	d/<key>           deadline, binary (deadline_codec.go)
//	f/<seq:8 BE>      fire history, JSON wakewheel.Fire
//	a/<seq:8 BE>      alert log, JSON wakewheel.Alert
//	n/<ns>/<key>      generic records of later packages (kv.go)
const (
	schemaKey      = "v/schema"
	syncMarkKey    = "v/sync"
	deadlinePrefix = "d/"
	firePrefix     = "f/"
	alertPrefix    = "a/"
	genericPrefix  = "n/"
)

// errBadNamespace is returned for a generic namespace that is empty or
// contains a slash (which would make one namespace a prefix of another).
var errBadNamespace = errors.New("store: namespace must be non-empty and contain no '/'")

func deadlineKey(dst []byte, key string) []byte {
	dst = append(dst, deadlinePrefix...)
	return append(dst, key...)
}

func seqKey(prefix string, seq uint64) []byte {
	k := make([]byte, 0, len(prefix)+8)
	k = append(k, prefix...)
	return binary.BigEndian.AppendUint64(k, seq)
}

// parseSeqKey returns the sequence number of an "f/" or "a/" key.
func parseSeqKey(prefix string, k []byte) (uint64, bool) {
	if len(k) != len(prefix)+8 || string(k[:len(prefix)]) != prefix {
		return 0, false
	}
	return binary.BigEndian.Uint64(k[len(prefix):]), true
}

func checkNamespace(ns string) error {
	if ns == "" || strings.Contains(ns, "/") {
		return errBadNamespace
	}
	return nil
}

// genericKey is "n/<ns>/<key>"; the caller has checked ns.
func genericKey(ns, key string) []byte {
	k := make([]byte, 0, len(genericPrefix)+len(ns)+1+len(key))
	k = append(k, genericPrefix...)
	k = append(k, ns...)
	k = append(k, '/')
	return append(k, key...)
}
