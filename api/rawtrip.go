package api

import (
	"io"
	"syscall"
)

// A post's round trip on its stream, on both sides (the client's post and
// its answer, the daemon's answer and the next post), without the two
// costs the runtime adds around a socket's syscalls, which on two cores
// cost the posters more than the syscalls did:
//
//   - the read that finds nothing: a read is tried before the runtime
//     waits for the socket to become readable, and an answer is never
//     there right after its post was written (it is fsynced first), nor
//     the next post right after an answer (its poster is reading it). So
//     the message is written from inside the connection's raw read, after
//     the runtime cleared the socket's readiness and before it waits: what
//     answers it arrives after the write, so it is never missed, and the
//     first read is the one that finds it.
//   - the syscall's entry into and exit from the scheduler: a write and a
//     read of a non-blocking socket return at once, so they are made raw
//     (rawio_linux.go), as the runtime's own poller does; a syscall made
//     the ordinary way also wakes the runtime's monitor thread once the
//     process was idle, which then polls every 20 µs for a millisecond or
//     more, a wake-up and a context switch each time.

// rawTrip is one connection's round trips: run writes out and reads what
// comes back first into in, both from inside the connection's raw read.
type rawTrip struct {
	fn        func(fd uintptr) bool // step, made once: a method value per call would be an allocation
	out, in   []byte
	sent, got int
	err       error
}

func newRawTrip() *rawTrip {
	t := &rawTrip{}
	t.fn = t.step
	return t
}

// run returns how much of out was written (the rest, if any, is the
// caller's to write the ordinary way) and how much was read into in. An
// error of the wait (a deadline) may come before anything was written.
func (t *rawTrip) run(rc syscall.RawConn, out, in []byte) (sent, got int, err error) {
	t.out, t.in, t.sent, t.got, t.err = out, in, 0, 0, nil
	err = rc.Read(t.fn)
	if err == nil {
		err = t.err
	}
	sent, got = t.sent, t.got
	t.out, t.in = nil, nil
	return sent, got, err
}

// step is called by the raw read: first to write, then to read.
func (t *rawTrip) step(fd uintptr) bool {
	if t.sent < len(t.out) {
		n, errno := rawWrite(fd, t.out[t.sent:])
		if errno != 0 && errno != syscall.EAGAIN {
			t.err = errno
			return true
		}
		if t.sent += n; t.sent < len(t.out) {
			return true // the rest goes the ordinary way
		}
		return false // wait for what answers it
	}
	n, wait, err := readOf(fd, t.in)
	if wait {
		return false // woken early: wait again
	}
	t.got, t.err = n, err
	return true
}

// readOf is one raw read of a non-blocking socket into b: what it read,
// or wait when nothing was there (EAGAIN), and io.EOF for a peer that
// closed.
func readOf(fd uintptr, b []byte) (n int, wait bool, err error) {
	n, errno := rawRead(fd, b)
	switch {
	case errno == syscall.EAGAIN:
		return 0, true, nil
	case errno != 0:
		return 0, false, errno
	case n == 0:
		return 0, false, io.EOF
	}
	return n, false, nil
}
