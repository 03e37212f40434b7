//go:build linux && !race

package api

import (
	"syscall"
	"unsafe"
)

// rawWrite and rawRead are write(2) and read(2) of a non-blocking socket
// without the scheduler's syscall entry (rawtrip.go says why), with
// their errno (0 for none); EINTR is retried.
func rawWrite(fd uintptr, b []byte) (int, syscall.Errno) { return rawIO(syscall.SYS_WRITE, fd, b) }
func rawRead(fd uintptr, b []byte) (int, syscall.Errno)  { return rawIO(syscall.SYS_READ, fd, b) }

func rawIO(trap, fd uintptr, b []byte) (int, syscall.Errno) {
	if len(b) == 0 {
		return 0, 0
	}
	for {
		n, _, e := syscall.RawSyscall(trap, fd, uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)))
		if e == syscall.EINTR {
			continue
		}
		if e != 0 {
			return 0, e
		}
		return int(n), 0
	}
}
