package store

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"

	"github.com/syndtr/goleveldb/leveldb/journal"
)

// Reading a damaged journal. The journal is a run of 32 KiB blocks of
// checksummed chunks; each record is one write batch (a sequence number,
// a count, then the puts and deletes). A chunk that fails its checksum is
// dropped with the rest of its block; the batches before and after it are
// kept. Every record of LevelDB takes one sequence number, so a gap
// between the sequence numbers of two intact batches says exactly how many
// records the damage took, and a damaged stretch with no intact batch
// after it is the journal's tail.

const batchHeaderLen = 12

// journalReport is what salvageJournal found in one journal file.
type journalReport struct {
	batches      int    // intact batches read
	drops        int    // damaged stretches skipped
	droppedBytes uint64 // their bytes, as the reader counted them
	lostRecords  uint64 // records missing between intact batches (sequence gaps)
	tailDamaged  bool   // a damaged stretch had no intact batch after it
	midDamaged   bool   // a damaged stretch had an intact batch after it
	lastSeq      uint64 // the last sequence number of the last intact batch
	maxMark      uint64 // the highest sync mark (v/sync) found
	hasMark      bool
}

type countingDropper struct{ drops, bytes int }

func (d *countingDropper) Drop(err error) {
	d.drops++
	var c *journal.ErrCorrupted
	if errors.As(err, &c) {
		d.bytes += c.Size
	}
}

// salvageJournal calls fn for every record of every intact batch of the
// journal read from r.
func salvageJournal(r io.Reader, fn func(entry)) (journalReport, error) {
	var rep journalReport
	d := &countingDropper{}
	jr := journal.NewReader(r, d, false, true)
	var buf bytes.Buffer
	pendingDrop := false
	for {
		before := d.drops
		rr, err := jr.Next()
		if d.drops > before {
			pendingDrop = true
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return rep, err
		}
		buf.Reset()
		_, err = buf.ReadFrom(rr)
		if d.drops > before {
			pendingDrop = true
		}
		if errors.Is(err, io.ErrUnexpectedEOF) {
			pendingDrop = true // a record cut by damage: dropped
			continue
		}
		if err != nil {
			return rep, err
		}
		seq, n, ok := decodeBatch(buf.Bytes(), fn, &rep)
		if !ok {
			pendingDrop = true
			d.drops++
			d.bytes += buf.Len()
			continue
		}
		if pendingDrop {
			rep.midDamaged = true
		}
		if rep.batches > 0 && seq > rep.lastSeq+1 {
			rep.lostRecords += seq - rep.lastSeq - 1
		}
		rep.batches++
		if n > 0 {
			rep.lastSeq = seq + uint64(n) - 1
		}
		pendingDrop = false
	}
	rep.drops, rep.droppedBytes = d.drops, uint64(d.bytes)
	rep.tailDamaged = pendingDrop
	return rep, nil
}

// decodeBatch parses one write batch, all or nothing, and hands its
// records to fn (and its sync mark to rep). It returns the batch's first
// sequence number and its record count.
func decodeBatch(b []byte, fn func(entry), rep *journalReport) (uint64, int, bool) {
	if len(b) < batchHeaderLen {
		return 0, 0, false
	}
	seq := binary.LittleEndian.Uint64(b)
	count := int(binary.LittleEndian.Uint32(b[8:]))
	var out []entry
	for o := batchHeaderLen; o < len(b); {
		kind := b[o]
		if kind > 1 {
			return 0, 0, false
		}
		o++
		kl, n := binary.Uvarint(b[o:])
		if n <= 0 || kl > uint64(len(b)-o-n) {
			return 0, 0, false
		}
		o += n
		e := entry{key: bytes.Clone(b[o : o+int(kl)]), seq: seq + uint64(len(out)), del: kind == 0}
		o += int(kl)
		if kind == 1 {
			vl, n := binary.Uvarint(b[o:])
			if n <= 0 || vl > uint64(len(b)-o-n) {
				return 0, 0, false
			}
			o += n
			e.val = bytes.Clone(b[o : o+int(vl)])
			o += int(vl)
		}
		out = append(out, e)
	}
	if len(out) != count || seq+uint64(count) > maxSeq {
		return 0, 0, false
	}
	for _, e := range out {
		if string(e.key) == syncMarkKey && !e.del && len(e.val) == 8 {
			if m := binary.BigEndian.Uint64(e.val); !rep.hasMark || m > rep.maxMark {
				rep.maxMark, rep.hasMark = m, true
			}
		}
		fn(e)
	}
	return seq, count, true
}
