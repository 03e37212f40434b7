package store

import (
	"encoding/binary"
	"math"
	"time"
	"unsafe"

	"github.com/wakewheel/wakewheel/deadlines"
)

// Deadline value encoding, version 1 (the record's key carries Key):
//
//	[0]      encoding version (1)
//	[1]      flags: bit 0 At is the zero Time, bit 1 Since is the zero Time
//	[2:10]   At as Unix nanoseconds, int64 big-endian
//	[10:18]  Since as Unix nanoseconds, int64 big-endian
//	uvarint  len(Kind), then Kind
//	uvarint  len(Payload), then Payload
//
// Fixed-width times keep decoding to a few loads. The zero Time has a flag
// because it has no Unix-nanosecond value; times outside the int64
// nanosecond range (before 1678, after 2262) are clamped to its ends. An
// empty Payload decodes as nil. Decoders of later versions must keep
// accepting version 1.
const (
	deadlineV1       = 1
	flagAtZero       = 1 << 0
	flagSinceZero    = 1 << 1
	deadlineFixedLen = 18
)

var (
	minNanoTime = time.Unix(0, math.MinInt64)
	maxNanoTime = time.Unix(0, math.MaxInt64)
)

func unixNanos(t time.Time) int64 {
	switch {
	case t.Before(minNanoTime):
		return math.MinInt64
	case t.After(maxNanoTime):
		return math.MaxInt64
	}
	return t.UnixNano()
}

// appendDeadline appends the encoding of d (all fields but Key) to dst.
func appendDeadline(dst []byte, d deadlines.Deadline) []byte {
	var flags byte
	var at, since int64
	if d.At.IsZero() {
		flags |= flagAtZero
	} else {
		at = unixNanos(d.At)
	}
	if d.Since.IsZero() {
		flags |= flagSinceZero
	} else {
		since = unixNanos(d.Since)
	}
	dst = append(dst, deadlineV1, flags)
	dst = binary.BigEndian.AppendUint64(dst, uint64(at))
	dst = binary.BigEndian.AppendUint64(dst, uint64(since))
	dst = binary.AppendUvarint(dst, uint64(len(d.Kind)))
	dst = append(dst, d.Kind...)
	dst = binary.AppendUvarint(dst, uint64(len(d.Payload)))
	return append(dst, d.Payload...)
}

// deadlineDecoder decodes many records cheaply: Kind strings are interned
// (a store holds a handful of kinds), and keys and payloads are carved out
// of shared slabs, so a reload of a million records makes a few tens of
// thousands of allocations. With viewKeys a key is not copied at all: it
// is a view of the record's own bytes, good only as long as those are
// (a load's batch, until its DecodeBatch returns), for a caller that
// copies what it keeps (the wheel's loader copies a key into its entry).
type deadlineDecoder struct {
	kinds    map[string]string
	last     string // the kind decoded last, interned
	slab     []byte // payloads
	keys     []byte // key bytes, never written twice: see key
	viewKeys bool
}

const (
	maxInternedKinds = 256
	payloadSlabSize  = 32 << 10
)

// decode decodes the record stored under the raw key k ("d/<key>") with
// value v. Neither k nor v is retained.
func (dec *deadlineDecoder) decode(k, v []byte) (deadlines.Deadline, error) {
	if len(v) < deadlineFixedLen {
		return deadlines.Deadline{}, badRecord(k, "deadline value too short")
	}
	if v[0] != deadlineV1 {
		return deadlines.Deadline{}, badRecord(k, "unknown deadline encoding version")
	}
	flags := v[1]
	if flags&^(flagAtZero|flagSinceZero) != 0 {
		return deadlines.Deadline{}, badRecord(k, "unknown deadline flags")
	}
	rest := v[deadlineFixedLen:]
	kind, rest, ok := lengthPrefixed(rest)
	if !ok {
		return deadlines.Deadline{}, badRecord(k, "bad deadline kind")
	}
	payload, rest, ok := lengthPrefixed(rest)
	if !ok || len(rest) != 0 {
		return deadlines.Deadline{}, badRecord(k, "bad deadline payload")
	}
	d := deadlines.Deadline{
		Key:     dec.keyOf(k[len(deadlinePrefix):]),
		Kind:    dec.kind(kind),
		Payload: dec.payload(payload),
	}
	if flags&flagAtZero == 0 {
		d.At = time.Unix(0, int64(binary.BigEndian.Uint64(v[2:10])))
	}
	if flags&flagSinceZero == 0 {
		d.Since = time.Unix(0, int64(binary.BigEndian.Uint64(v[10:18])))
	}
	return d, nil
}

// lengthPrefixed splits a uvarint-length-prefixed field off b.
func lengthPrefixed(b []byte) (field, rest []byte, ok bool) {
	n, w := binary.Uvarint(b)
	if w <= 0 || n > uint64(len(b)-w) {
		return nil, nil, false
	}
	end := w + int(n)
	return b[w:end], b[end:], true
}

func (dec *deadlineDecoder) kind(b []byte) string {
	if string(b) == dec.last { // runs of one kind: no hashing
		return dec.last
	}
	if s, ok := dec.kinds[string(b)]; ok {
		dec.last = s
		return s
	}
	s := string(b)
	if dec.kinds == nil {
		dec.kinds = make(map[string]string)
	}
	if len(dec.kinds) < maxInternedKinds {
		dec.kinds[s] = s
		dec.last = s
	}
	return s
}

// keyOf is the key of a record whose raw key, without the prefix, is b:
// a view of b with viewKeys, else key's copy.
func (dec *deadlineDecoder) keyOf(b []byte) string {
	if dec.viewKeys && len(b) > 0 {
		return unsafe.String(&b[0], len(b))
	}
	return dec.key(b)
}

// keep is key for a string, such as a view keyOf returned.
func (dec *deadlineDecoder) keep(s string) string {
	return dec.key(unsafe.Slice(unsafe.StringData(s), len(s)))
}

// key returns b as a string backed by the current key slab: a million keys
// cost a few hundred allocations instead of a million. The bytes of a slab
// are written once and never again, which is what unsafe.String asks of
// them; a key kept alive keeps its slab of a few tens of KiB alive.
func (dec *deadlineDecoder) key(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	if len(b) > payloadSlabSize/4 {
		return string(b)
	}
	if cap(dec.keys)-len(dec.keys) < len(b) {
		dec.keys = make([]byte, 0, payloadSlabSize)
	}
	start := len(dec.keys)
	dec.keys = append(dec.keys, b...)
	return unsafe.String(&dec.keys[start], len(b))
}

// payload copies b into the current slab. The result has its capacity cut
// to its length, so appending to it never writes into a neighbour.
func (dec *deadlineDecoder) payload(b []byte) []byte {
	if len(b) == 0 {
		return nil
	}
	if len(b) > payloadSlabSize/4 {
		return append([]byte(nil), b...)
	}
	if cap(dec.slab)-len(dec.slab) < len(b) {
		dec.slab = make([]byte, 0, payloadSlabSize)
	}
	start := len(dec.slab)
	dec.slab = append(dec.slab, b...)
	return dec.slab[start:len(dec.slab):len(dec.slab)]
}
