package obligations

import (
	"encoding/binary"
	"fmt"
	"time"
	"unicode/utf8"
)

// RecordVersion is the first byte of every encoded record. Decode accepts
// this version (and will keep accepting it when a later one is added).
const RecordVersion byte = 1

// RecordKind says which field of a Record is meaningful.
type RecordKind uint8

const (
	// RecordObligation: an obligation, written once, never changed.
	RecordObligation RecordKind = 1
	// RecordCursor: a lane's RECEIVED and CONSUMED cursors; the latest
	// write per lane wins (Restore takes the maximum of each anyway).
	RecordCursor RecordKind = 2
	// RecordCheckpoint: a lane's last park checkpoint.
	RecordCheckpoint RecordKind = 3
	// RecordCompaction: how far a lane is compacted (retention.go);
	// overwritten.
	RecordCompaction RecordKind = 4
	// RecordTombstone: what is left of one compacted obligation, for
	// deduplication until the horizon; deleted by a sweep.
	RecordTombstone RecordKind = 5
)

func (k RecordKind) String() string {
	switch k {
	case RecordObligation:
		return "obligation"
	case RecordCursor:
		return "cursor"
	case RecordCheckpoint:
		return "checkpoint"
	case RecordCompaction:
		return "compaction"
	case RecordTombstone:
		return "tombstone"
	}
	return fmt.Sprintf("kind(%d)", uint8(k))
}

// Cursor is a lane's delivery and consumption cursors at a moment.
type Cursor struct {
	Lane     string    `json:"lane"`
	Received uint64    `json:"received"`
	Consumed uint64    `json:"consumed"`
	At       time.Time `json:"at"`
}

// Record is one unit of durable state. Exactly the field named by Kind is
// meaningful.
type Record struct {
	Kind       RecordKind
	Obligation Obligation
	Cursor     Cursor
	Checkpoint Checkpoint
	Compaction Compaction
	Tombstone  Tombstone
}

func obligationRecord(o Obligation) Record {
	o.Duplicate = false
	return Record{Kind: RecordObligation, Obligation: o}
}
func cursorRecord(c Cursor) Record         { return Record{Kind: RecordCursor, Cursor: c} }
func checkpointRecord(c Checkpoint) Record { return Record{Kind: RecordCheckpoint, Checkpoint: c} }
func compactionRecord(c Compaction) Record { return Record{Kind: RecordCompaction, Compaction: c} }
func tombstoneRecord(t Tombstone) Record   { return Record{Kind: RecordTombstone, Tombstone: t} }

// Key is the record's store key (inside the store's namespace for this
// package). Keys sort by kind, then lane, then sequence:
//
//	o/<lane>/<seq, 20 decimal digits>   obligation (never overwritten)
//	c/<lane>                            cursor (overwritten)
//	p/<lane>                            checkpoint (overwritten)
//	b/<lane>                            compaction (overwritten)
//	t/<lane>/<id>                       tombstone (deleted past the horizon)
func (r Record) Key() string {
	switch r.Kind {
	case RecordObligation:
		return fmt.Sprintf("o/%s/%020d", r.Obligation.Lane, r.Obligation.Seq)
	case RecordCursor:
		return "c/" + r.Cursor.Lane
	case RecordCheckpoint:
		return "p/" + r.Checkpoint.Lane
	case RecordCompaction:
		return "b/" + r.Compaction.Lane
	case RecordTombstone:
		return TombstoneKey(r.Tombstone.Lane, r.Tombstone.ID)
	}
	return ""
}

// Lane is the lane the record belongs to.
func (r Record) Lane() string {
	switch r.Kind {
	case RecordObligation:
		return r.Obligation.Lane
	case RecordCursor:
		return r.Cursor.Lane
	case RecordCheckpoint:
		return r.Checkpoint.Lane
	case RecordCompaction:
		return r.Compaction.Lane
	case RecordTombstone:
		return r.Tombstone.Lane
	}
	return ""
}

// Encode returns the binary form of r: the version byte, the kind byte,
// then the fields as uvarint-length-prefixed strings, uvarints, and times
// (a presence byte, then Unix nanoseconds as a varint).
func Encode(r Record) []byte {
	b := []byte{RecordVersion, byte(r.Kind)}
	switch r.Kind {
	case RecordObligation:
		o := &r.Obligation
		b = appendString(b, o.Lane)
		b = binary.AppendUvarint(b, o.Seq)
		b = appendString(b, o.ID)
		b = append(b, byte(o.Class.index()))
		b = appendString(b, o.Body)
		for _, f := range [...]string{o.Locator.Repo, o.Locator.Issue, o.Locator.SHA, o.Locator.File, o.Key} {
			b = appendString(b, f)
		}
		var flags byte
		if o.Canary {
			flags |= 1
		}
		b = append(b, flags)
		b = appendTime(b, o.Posted)
	case RecordCursor:
		c := &r.Cursor
		b = appendMark(b, c.Lane, c.Received, c.Consumed, c.At)
	case RecordCheckpoint:
		c := &r.Checkpoint
		b = appendMark(b, c.Lane, c.Consumed, c.Head, c.At)
	case RecordCompaction:
		c := &r.Compaction
		b = appendString(b, c.Lane)
		b = binary.AppendUvarint(b, c.Base)
		b = appendTime(b, c.At)
		b = appendTime(b, c.TombSince)
	case RecordTombstone:
		t := &r.Tombstone
		b = appendString(b, t.Lane)
		b = appendString(b, t.ID)
		b = binary.AppendUvarint(b, t.Seq)
		b = append(b, byte(t.Class.index()))
		b = appendTime(b, t.Posted)
		b = appendTime(b, t.Compacted)
	}
	return b
}

// appendMark appends the shape a cursor and a checkpoint share: a lane,
// two counters in the record's order, and a time (decoder.mark reads it).
func appendMark(b []byte, lane string, first, second uint64, at time.Time) []byte {
	b = appendString(b, lane)
	b = binary.AppendUvarint(b, first)
	b = binary.AppendUvarint(b, second)
	return appendTime(b, at)
}

func appendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

func appendTime(b []byte, t time.Time) []byte {
	if t.IsZero() {
		return append(b, 0)
	}
	return binary.AppendVarint(append(b, 1), t.UnixNano())
}

// Decode parses a record made by Encode. Anything else (empty input, an
// unknown version or kind, a truncated or over-long field, trailing bytes,
// a value that breaks a record invariant) gives an error wrapping
// ErrBadRecord. Decode never panics.
func Decode(data []byte) (Record, error) {
	d := decoder{b: data}
	if len(data) < 2 {
		return Record{}, fmt.Errorf("%w: %d bytes is too short", ErrBadRecord, len(data))
	}
	if v := d.byte(); v != RecordVersion {
		return Record{}, fmt.Errorf("%w: unsupported version %d (this build reads %d)", ErrBadRecord, v, RecordVersion)
	}
	r := Record{Kind: RecordKind(d.byte())}
	switch r.Kind {
	case RecordObligation:
		o := &r.Obligation
		o.Lane = d.string()
		o.Seq = d.uvarint()
		o.ID = d.string()
		ci := int(d.byte())
		o.Body = d.string()
		o.Locator.Repo, o.Locator.Issue = d.string(), d.string()
		o.Locator.SHA, o.Locator.File = d.string(), d.string()
		o.Key = d.string()
		flags := d.byte()
		o.Posted = d.time()
		if d.err == nil {
			d.check(ci < numClasses, "class index %d", ci)
			if ci < numClasses {
				o.Class = Classes[ci]
			}
			d.check(flags&^1 == 0, "flags %#x", flags)
			o.Canary = flags&1 != 0
			d.check(o.Seq > 0, "sequence number 0")
			d.check(utf8.ValidString(o.Body), "body is not UTF-8")
			d.valid(validateID(o.ID))
			for _, f := range [...]string{o.Locator.Repo, o.Locator.Issue, o.Locator.SHA, o.Locator.File} {
				d.valid(checkField("locator", f, MaxFieldLen))
			}
			d.valid(checkField("key", o.Key, MaxIDLen))
		}
		d.valid(ValidateLane(o.Lane))
	case RecordCursor:
		c := &r.Cursor
		d.mark(&c.Lane, &c.Received, &c.Consumed, &c.At)
		d.check(c.Consumed <= c.Received, "consumed %d past received %d", c.Consumed, c.Received)
	case RecordCheckpoint:
		c := &r.Checkpoint
		d.mark(&c.Lane, &c.Consumed, &c.Head, &c.At)
		d.check(c.Consumed <= c.Head, "consumed %d past head %d", c.Consumed, c.Head)
	case RecordCompaction:
		c := &r.Compaction
		c.Lane = d.string()
		c.Base = d.uvarint()
		c.At, c.TombSince = d.time(), d.time()
		d.valid(ValidateLane(c.Lane))
	case RecordTombstone:
		t := &r.Tombstone
		t.Lane, t.ID = d.string(), d.string()
		t.Seq = d.uvarint()
		ci := int(d.byte())
		t.Posted, t.Compacted = d.time(), d.time()
		if d.err == nil {
			d.check(ci < numClasses, "class index %d", ci)
			if ci < numClasses {
				t.Class = Classes[ci]
			}
			d.check(t.Seq > 0, "sequence number 0")
			d.valid(validateID(t.ID))
		}
		d.valid(ValidateLane(t.Lane))
	default:
		return Record{}, fmt.Errorf("%w: unknown kind %d", ErrBadRecord, r.Kind)
	}
	d.check(len(d.b) == 0, "%d trailing bytes", len(d.b))
	if d.err != nil {
		return Record{}, d.err
	}
	return r, nil
}

// decoder reads fields from b; the first failure sticks in err and every
// later read returns a zero value.
type decoder struct {
	b   []byte
	err error
}

// mark reads what appendMark wrote and checks the lane.
func (d *decoder) mark(lane *string, first, second *uint64, at *time.Time) {
	*lane = d.string()
	*first, *second = d.uvarint(), d.uvarint()
	*at = d.time()
	d.valid(ValidateLane(*lane))
}

func (d *decoder) fail(format string, args ...any) {
	if d.err == nil {
		d.err = fmt.Errorf("%w: %s", ErrBadRecord, fmt.Sprintf(format, args...))
	}
}

func (d *decoder) check(ok bool, format string, args ...any) {
	if !ok && d.err == nil {
		d.fail(format, args...)
	}
}

func (d *decoder) valid(err error) {
	if err != nil && d.err == nil {
		d.err = fmt.Errorf("%w: %w", ErrBadRecord, err)
	}
}

func (d *decoder) byte() byte {
	if d.err != nil {
		return 0
	}
	if len(d.b) == 0 {
		d.fail("truncated")
		return 0
	}
	c := d.b[0]
	d.b = d.b[1:]
	return c
}

func (d *decoder) uvarint() uint64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.fail("bad uvarint")
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) string() string {
	n := d.uvarint()
	if d.err != nil {
		return ""
	}
	if n > uint64(len(d.b)) {
		d.fail("string of %d bytes with %d left", n, len(d.b))
		return ""
	}
	s := string(d.b[:n])
	d.b = d.b[n:]
	return s
}

func (d *decoder) time() time.Time {
	switch d.byte() {
	case 0:
		return time.Time{}
	case 1:
		if d.err != nil {
			return time.Time{}
		}
		v, n := binary.Varint(d.b)
		if n <= 0 {
			d.fail("bad time")
			return time.Time{}
		}
		d.b = d.b[n:]
		return time.Unix(0, v).UTC()
	default:
		d.fail("bad time marker")
		return time.Time{}
	}
}
