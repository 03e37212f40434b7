package store

import (
	"bytes"
	"encoding/binary"
	"fmt"

	"github.com/golang/snappy"
	"github.com/syndtr/goleveldb/leveldb/util"
)

// Reading a damaged table, block by block. A LevelDB table is a run of
// blocks, each followed by a 5-byte trailer (compression type, masked
// CRC-32C of the block and that type byte), then the index block (one
// handle per data block) and a 48-byte footer naming the index. salvageTable
// trusts nothing it has not checked: when the footer and the index pass
// their checksums it reads the data blocks they name and skips those that
// fail theirs; when the index itself is damaged it walks the file from the
// start, finding each block's end by its checksum, so every intact data
// block is still read. goleveldb's own reader cannot do the second, and its
// recovery stops at the first bad key.

const (
	blockTrailerLen = 5
	footerLen       = 48
	tableMagic      = "\x57\xfb\x80\x8b\x24\x75\x47\xdb"
	maxSeq          = (uint64(1) << 56) - 1 // goleveldb's keyMaxSeq: index separators carry it
)

// entry is one internal record: a user key at a LevelDB sequence number, a
// value or a deletion.
type entry struct {
	key, val []byte
	seq      uint64
	del      bool
}

// blockHandle locates a block (without its trailer) in a table.
type blockHandle struct{ off, n uint64 }

func readHandle(b []byte) (blockHandle, int) {
	off, n1 := binary.Uvarint(b)
	if n1 <= 0 {
		return blockHandle{}, 0
	}
	n, n2 := binary.Uvarint(b[n1:])
	if n2 <= 0 {
		return blockHandle{}, 0
	}
	return blockHandle{off, n}, n1 + n2
}

// blockOK reports whether the block at h of data is intact.
func blockOK(data []byte, h blockHandle) bool {
	end := h.off + h.n
	if h.off > uint64(len(data)) || end+blockTrailerLen > uint64(len(data)) || end < h.off {
		return false
	}
	typ := data[end]
	want := binary.LittleEndian.Uint32(data[end+1:])
	return typ <= 1 && util.NewCRC(data[h.off:end+1]).Value() == want
}

// blockContents returns the uncompressed contents of the intact block at h.
func blockContents(data []byte, h blockHandle) ([]byte, error) {
	raw := data[h.off : h.off+h.n]
	if data[h.off+h.n] == 1 {
		return snappy.Decode(nil, raw)
	}
	return raw, nil
}

// blockEntries parses a block's key/value pairs (prefix-compressed keys,
// then the restart array and its length). It stops at the first entry that
// does not parse and reports whether the block parsed completely.
func blockEntries(b []byte, fn func(k, v []byte)) bool {
	if len(b) < 4 {
		return false
	}
	restarts := uint64(binary.LittleEndian.Uint32(b[len(b)-4:]))
	if restarts*4+4 > uint64(len(b)) {
		return false
	}
	body := b[:uint64(len(b))-4-restarts*4]
	var key []byte
	for len(body) > 0 {
		shared, n1 := binary.Uvarint(body)
		if n1 <= 0 {
			return false
		}
		unshared, n2 := binary.Uvarint(body[n1:])
		if n2 <= 0 {
			return false
		}
		vlen, n3 := binary.Uvarint(body[n1+n2:])
		if n3 <= 0 {
			return false
		}
		body = body[n1+n2+n3:]
		if shared > uint64(len(key)) || unshared > uint64(len(body)) || vlen > uint64(len(body))-unshared {
			return false
		}
		key = append(key[:shared], body[:unshared]...)
		fn(key, body[unshared:unshared+vlen])
		body = body[unshared+vlen:]
	}
	return true
}

// tableReport is what salvageTable found in one table file.
type tableReport struct {
	blocks, bad int    // data blocks found, data blocks that failed
	badBytes    uint64 // bytes of the failed blocks
	// lost are the key ranges of the data blocks that failed, when the
	// index could say (first key after the previous block .. last key).
	lost []keyRange
	// walked: the index was damaged and the file was walked instead.
	walked bool
	// rest: bytes at the end of a walk that no intact block covered.
	rest uint64
}

// keyRange is a range of user keys, both ends included ("" = unknown).
type keyRange struct{ from, to string }

// salvageTable calls fn for every internal record of every intact data
// block of the table in data.
func salvageTable(data []byte, fn func(entry)) tableReport {
	var rep tableReport
	emit := func(k, v []byte) {
		if len(k) < 8 {
			return
		}
		num := binary.LittleEndian.Uint64(k[len(k)-8:])
		seq, kind := num>>8, num&0xff
		if kind > 1 || seq >= maxSeq {
			return
		}
		fn(entry{key: bytes.Clone(k[:len(k)-8]), val: bytes.Clone(v), seq: seq, del: kind == 0})
	}
	data1 := func(h blockHandle) bool {
		c, err := blockContents(data, h)
		return err == nil && blockEntries(c, emit)
	}
	if handles, ok := tableIndex(data); ok {
		prev := ""
		for _, ih := range handles {
			rep.blocks++
			if !blockOK(data, ih.h) || !data1(ih.h) {
				rep.bad++
				rep.badBytes += ih.h.n + blockTrailerLen
				rep.lost = append(rep.lost, keyRange{prev, ih.last})
			}
			prev = ih.last
		}
		return rep
	}
	rep.walked = true
	var off uint64
	for off < uint64(len(data)) {
		h, ok := nextBlock(data, off)
		if !ok {
			rep.rest = uint64(len(data)) - off
			break
		}
		off = h.off + h.n + blockTrailerLen
		c, err := blockContents(data, h)
		if err != nil || isIndexBlock(c, data) {
			continue
		}
		rep.blocks++
		if !blockEntries(c, emit) {
			rep.bad++
			rep.badBytes += h.n + blockTrailerLen
		}
	}
	if rep.rest > footerLen {
		rep.bad++
		rep.badBytes += rep.rest - footerLen
	}
	return rep
}

type indexEntry struct {
	h    blockHandle
	last string // the separator: no key of the block sorts after it
}

// tableIndex reads the footer and the index block, if both are intact.
func tableIndex(data []byte) ([]indexEntry, bool) {
	if len(data) < footerLen {
		return nil, false
	}
	f := data[len(data)-footerLen:]
	if string(f[footerLen-8:]) != tableMagic {
		return nil, false
	}
	_, n := readHandle(f) // the metaindex
	if n == 0 {
		return nil, false
	}
	ih, m := readHandle(f[n:])
	if m == 0 || !blockOK(data, ih) {
		return nil, false
	}
	c, err := blockContents(data, ih)
	if err != nil {
		return nil, false
	}
	var out []indexEntry
	good := blockEntries(c, func(k, v []byte) {
		h, n := readHandle(v)
		if n == 0 || n != len(v) || h.off+h.n > ih.off {
			out = append(out, indexEntry{h: blockHandle{off: ^uint64(0)}}) // refused below
			return
		}
		last := k
		if len(last) >= 8 {
			last = last[:len(last)-8]
		}
		out = append(out, indexEntry{h: h, last: string(last)})
	})
	if !good {
		return nil, false
	}
	for _, e := range out {
		if e.h.off == ^uint64(0) {
			return nil, false
		}
	}
	return out, true
}

// nextBlock finds the intact block that starts at off: the first end
// position whose trailer holds the checksum of what precedes it.
func nextBlock(data []byte, off uint64) (blockHandle, bool) {
	var crc util.CRC
	for end := off; end+blockTrailerLen <= uint64(len(data)); end++ {
		typ := data[end]
		if typ <= 1 && crc.Update(data[end:end+1]).Value() == binary.LittleEndian.Uint32(data[end+1:]) {
			return blockHandle{off, end - off}, true
		}
		crc = crc.Update(data[end : end+1])
	}
	return blockHandle{}, false
}

// isIndexBlock tells an index or metaindex block from a data block when a
// table is walked: every value of an index is a block handle inside the
// file. A data block of this store never looks like that (its values are
// records, and the metaindex of a table without filters is empty).
func isIndexBlock(c, data []byte) bool {
	n, handles := 0, 0
	blockEntries(c, func(k, v []byte) {
		n++
		if h, m := readHandle(v); m == len(v) && h.off+h.n+blockTrailerLen <= uint64(len(data)) {
			handles++
		}
	})
	return n == handles
}

func (r keyRange) String() string {
	from, to := r.from, r.to
	if from == "" {
		from = "(start)"
	}
	if to == "" {
		to = "(end)"
	}
	return fmt.Sprintf("%q..%q", from, to)
}
