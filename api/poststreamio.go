package api

import (
	"encoding/binary"
	"net"
	"syscall"
)

// The daemon's side of a post stream's bytes: the frames read from a
// buffer of the stream's own, and each answer written and the next post's
// first bytes read by one rawTrip (rawtrip.go). Posts already buffered (a
// client that sends the next before the answer) are taken from the buffer
// first; a frame larger than the buffer, an answer larger than rawFrame
// or the socket does not take whole, a platform without raw syscalls: the
// ordinary reads and writes of c.

// streamBuffer is a stream's read buffer: most posts are read whole by one
// read; a larger frame grows it for that frame only. A pipelined stream's
// (pipeBuffer) takes a batch of posts, as many as a client of 64 posters
// writes at once, in one read.
const (
	streamBuffer = 4096
	pipeBuffer   = 32 << 10
)

// streamIO is one stream's buffered bytes: in[r:w] is read and not yet
// taken.
type streamIO struct {
	c    net.Conn
	raw  syscall.RawConn // nil: the ordinary reads and writes
	trip *rawTrip
	in   []byte
	r, w int
	size int // of in, but for a large frame
}

func newStreamIO(c net.Conn, buffered []byte, size int) *streamIO {
	s := &streamIO{c: c, raw: rawConn(c), in: make([]byte, max(size, len(buffered))), size: size}
	s.w = copy(s.in, buffered)
	if s.raw != nil {
		s.trip = newRawTrip()
	}
	return s
}

// frame returns the next post's length, and its body unless the length is
// out of bounds (then nothing more is read). The body stays valid until
// the next call.
func (s *streamIO) frame() (n uint32, body []byte, err error) {
	n, _, body, err = s.frameOf(postHeader)
	return n, body, err
}

// frameOf is frame for a header of hdr bytes: the length, and for a
// pipelined post (pipePostHeader) its id, returned also when the length
// is out of bounds.
func (s *streamIO) frameOf(hdr int) (n, id uint32, body []byte, err error) {
	if err := s.fill(hdr); err != nil {
		return 0, 0, nil, err
	}
	n = binary.BigEndian.Uint32(s.in[s.r:])
	if hdr == pipePostHeader {
		id = binary.BigEndian.Uint32(s.in[s.r+postHeader:])
	}
	if !frameLenOK(n) {
		return n, id, nil, nil
	}
	s.r += hdr
	if err := s.fill(int(n)); err != nil {
		return n, id, nil, err
	}
	body = s.in[s.r : s.r+int(n)]
	s.r += int(n)
	return n, id, body, nil
}

// whole says a whole frame of a header of hdr bytes, with a length in
// bounds, is buffered: frameOf takes it without reading c.
func (s *streamIO) whole(hdr int) bool {
	if s.w-s.r < hdr {
		return false
	}
	n := binary.BigEndian.Uint32(s.in[s.r:])
	return frameLenOK(n) && s.w-s.r >= hdr+int(n)
}

// frameLenOK says a post frame's length is in bounds: 1 to
// MaxRequestBytes (lengthRefused answers the others).
func frameLenOK(n uint32) bool { return n != 0 && n <= MaxRequestBytes }

// buffered says bytes were read and not yet taken.
func (s *streamIO) buffered() bool { return s.r < s.w }

// fill has k bytes read and not taken in the buffer, reading c for what is
// missing.
func (s *streamIO) fill(k int) error {
	if s.w-s.r >= k {
		return nil
	}
	if s.r == s.w && cap(s.in) > s.size {
		s.in = make([]byte, s.size) // a large frame's buffer goes with it
	}
	if len(s.in)-s.r < k { // move what is left to the front, in a larger buffer if need be
		in := s.in
		if len(in) < k {
			in = make([]byte, k)
		}
		s.w = copy(in, s.in[s.r:s.w])
		s.r, s.in = 0, in
	}
	for s.w-s.r < k {
		n, err := s.c.Read(s.in[s.w:])
		s.w += n
		if err != nil && s.w-s.r < k {
			return err
		}
	}
	return nil
}

// answer writes out and, unless a post is already buffered, waits for the
// next one and reads what arrives of it. A read error ends the stream
// (closed, idle, Shutdown) and is returned once out is written.
func (s *streamIO) answer(out []byte) error {
	if s.raw == nil || len(out) > rawFrame || s.r < s.w {
		_, err := s.c.Write(out)
		return err
	}
	if s.r == s.w {
		s.r, s.w = 0, 0
	}
	sent, got, err := s.trip.run(s.raw, out, s.in[s.w:])
	s.w += got
	if sent < len(out) { // refused before the write (a deadline passed: Shutdown), or written in part
		if _, werr := s.c.Write(out[sent:]); werr != nil {
			return werr
		}
	}
	return err
}
