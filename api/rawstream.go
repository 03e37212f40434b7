package api

import (
	"net"
	"syscall"
)

// rawStream is a connection's reads and writes by raw syscalls made from
// inside its RawConn (rawio_linux.go): a read that finds nothing, or a
// write the socket cannot take, waits in the runtime's poller as an
// ordinary one does, and the connection's deadlines hold. The client's
// pipelined post stream reads and writes through it. An ordinary syscall
// wakes the runtime's monitor thread if the process was idle, and it then
// polls every 20 µs for a millisecond or more (rawtrip.go); a client whose
// posters all wait for a commit is idle once a commit cycle, so its first
// write after each woke the monitor: about a sixth of the posters'
// process's CPU with 64 posters sharing a stream. Where raw syscalls are
// not made (raw is nil) it is the connection's own Read and Write.
//
// One goroutine reads and one writes at a time (the pipe's reader, the
// batchWriter's writer): each has its own state.
type rawStream struct {
	c    net.Conn
	raw  syscall.RawConn
	r, w rawStep
}

// rawStep is one read's or write's buffer and outcome, and the function
// the RawConn calls (made once: a method value per call would allocate).
type rawStep struct {
	b   []byte
	n   int
	err error
	fn  func(fd uintptr) bool
}

func newRawStream(c net.Conn, raw syscall.RawConn) *rawStream {
	s := &rawStream{c: c, raw: raw}
	s.r.fn, s.w.fn = s.readStep, s.writeStep
	return s
}

func (s *rawStream) Read(b []byte) (int, error) {
	if s.raw == nil || len(b) == 0 {
		return s.c.Read(b)
	}
	return s.r.run(b, s.raw.Read)
}

func (s *rawStream) Write(b []byte) (int, error) {
	if s.raw == nil || len(b) == 0 {
		return s.c.Write(b)
	}
	return s.w.run(b, s.raw.Write)
}

// run has io call st.fn until it is done and returns what it did.
func (st *rawStep) run(b []byte, io func(func(uintptr) bool) error) (int, error) {
	st.b, st.n, st.err = b, 0, nil
	err := io(st.fn)
	if err == nil {
		err = st.err
	}
	n := st.n
	st.b = nil
	return n, err
}

// readStep reads what is there; with nothing, it waits (false) to be
// called again once the socket is readable.
func (s *rawStream) readStep(fd uintptr) bool {
	st := &s.r
	n, wait, err := readOf(fd, st.b)
	if wait {
		return false
	}
	st.n, st.err = n, err
	return true
}

// writeStep writes until all of the buffer is written, waiting (false)
// whenever the socket takes no more.
func (s *rawStream) writeStep(fd uintptr) bool {
	st := &s.w
	for st.n < len(st.b) {
		n, errno := rawWrite(fd, st.b[st.n:])
		switch {
		case errno == syscall.EAGAIN:
			return false
		case errno != 0:
			st.err = errno
			return true
		}
		st.n += n
	}
	return true
}
