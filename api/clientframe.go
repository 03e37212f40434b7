package api

import (
	"io"
	"syscall"
)

// A post's round trip on its stream without the two costs the runtime
// adds around a socket's syscalls, which on two cores cost the posters
// more than the syscalls did:
//
//   - the read that finds nothing: a read is tried before the runtime
//     waits for the socket to become readable, and an answer is never
//     there right after its post was written (it is fsynced first). So
//     the post is written from inside the connection's raw read, after the
//     runtime cleared the socket's readiness and before it waits: the
//     answer's arrival is after the write, so it is never missed, and the
//     first read is the one that finds it.
//   - the syscall's entry into and exit from the scheduler: a write and a
//     read of a non-blocking socket return at once, so they are made raw
//     (rawio_linux.go), as the runtime's own poller does; a syscall made
//     the ordinary way also wakes the runtime's monitor thread once the
//     process was idle, which then polls every 20 µs for a millisecond or
//     more, a wake-up and a context switch each time.
//
// Anything out of the ordinary takes the ordinary path: a frame the
// socket does not take whole at once, a connection whose reader holds
// bytes, a platform without raw syscalls here.

// rawFrame bounds the frames sent this way (a larger one may not fit the
// socket's buffer at once).
const rawFrame = 16 << 10

// roundTrip writes frame and returns what arrived first of the answer,
// read into cn.in; nil with no error when the answer is left to be read
// from cn.br (the ordinary path).
func (cn *clientConn) roundTrip(frame []byte) (first []byte, err error) {
	if cn.raw == nil || len(frame) > rawFrame || cn.br.Buffered() > 0 {
		_, err := cn.c.Write(frame)
		return nil, err
	}
	if cn.trip == nil {
		cn.trip = &rawTrip{in: make([]byte, 4096)}
		cn.trip.fn = cn.trip.step // made once: a method value per call would be an allocation
	}
	t := cn.trip
	t.frame, t.sent, t.got, t.err = frame, 0, 0, nil
	err = cn.raw.Read(t.fn)
	if err == nil {
		err = t.err
	}
	t.frame = nil
	if err != nil {
		return nil, err
	}
	sent := t.sent
	if sent < len(frame) {
		_, err := cn.c.Write(frame[sent:])
		return nil, err
	}
	return t.in[:t.got], nil
}

// rawTrip is a connection's round trip in progress: step is called by the
// connection's raw read, first to write the frame, then to read.
type rawTrip struct {
	fn        func(fd uintptr) bool // step
	in        []byte
	frame     []byte
	sent, got int
	err       error
}

func (t *rawTrip) step(fd uintptr) bool {
	if t.sent < len(t.frame) {
		n, errno := rawWrite(fd, t.frame[t.sent:])
		if errno != 0 && errno != syscall.EAGAIN {
			t.err = errno
			return true
		}
		if t.sent += n; t.sent < len(t.frame) {
			return true // the rest goes the ordinary way
		}
		return false // wait for the answer
	}
	n, errno := rawRead(fd, t.in)
	switch {
	case errno == syscall.EAGAIN:
		return false // woken early: wait again
	case errno != 0:
		t.err = errno
	case n == 0:
		t.err = io.EOF
	}
	t.got = n
	return true
}
