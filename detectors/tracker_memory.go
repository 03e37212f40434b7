package detectors

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
)

// A git tracker's memory — the last captured set, each path with its
// state on disk when it was captured — is what keeps a dirty or untracked
// file from being handed to ingest again at every detection. Kept only in
// memory, a restart forgets it and hands every such file again; so the
// caller persists it with the capture itself (Memory), and gives it back
// at the next start (Restore).
//
// Every entry is a fact that stays true ("this path, in this state, was
// captured"), so a memory older than the last capture is safe: a path
// that changed since compares different and is handed again.

// maxMemory bounds the entries persisted: past it Memory returns nil and a
// restart hands those paths once more (a checkout's changed set is
// committed files, which leave the set at the next detection anyway).
const maxMemory = 50_000

const memoryVersion = 1

// ErrBadMemory: a persisted memory could not be decoded.
var ErrBadMemory = errors.New("detectors: bad tracker memory")

// Memory encodes the set the last Detect found, to be persisted in the
// same write as its capture; nil when there is nothing to remember (a
// plain directory, no detection yet) or too much (maxMemory).
func (t *Tracker) Memory() []byte {
	if t.next == nil || len(t.next) > maxMemory {
		return nil
	}
	b := []byte{memoryVersion}
	for p, st := range t.next {
		b = binary.AppendUvarint(b, uint64(len(p)))
		b = append(b, p...)
		var flags byte
		if st.exists {
			flags = 1
		}
		b = append(b, flags)
		b = binary.AppendVarint(b, st.mtime)
		b = binary.AppendVarint(b, st.ctime)
		b = binary.AppendVarint(b, st.size)
		b = binary.AppendUvarint(b, st.ino)
		b = binary.AppendUvarint(b, uint64(st.mode))
	}
	return b
}

// Restore sets the tracker's memory from what Memory encoded. A tracker
// that already detected keeps its own.
func (t *Tracker) Restore(b []byte) error {
	if t.captured != nil || len(b) == 0 {
		return nil
	}
	if b[0] != memoryVersion {
		return fmt.Errorf("%w: version %d", ErrBadMemory, b[0])
	}
	mem := make(map[string]fileStat)
	r := b[1:]
	for len(r) > 0 {
		n, k := binary.Uvarint(r)
		if k <= 0 || n >= uint64(len(r)-k) {
			return fmt.Errorf("%w: truncated path", ErrBadMemory)
		}
		p := string(r[k : k+int(n)])
		r = r[k+int(n):]
		st := fileStat{exists: r[0]&1 == 1}
		r = r[1:]
		var vals [5]int64
		for i := range vals {
			var v int64
			var k int
			if i < 3 {
				v, k = binary.Varint(r)
			} else {
				var u uint64
				u, k = binary.Uvarint(r)
				v = int64(u)
			}
			if k <= 0 {
				return fmt.Errorf("%w: truncated entry for %q", ErrBadMemory, p)
			}
			vals[i], r = v, r[k:]
		}
		st.mtime, st.ctime, st.size, st.ino, st.mode = vals[0], vals[1], vals[2], uint64(vals[3]), fs.FileMode(vals[4])
		mem[p] = st
	}
	t.captured = mem
	return nil
}
