//go:build linux && race

package api

import "syscall"

// Under the race detector the syscall package's own read and write: they
// tell the detector that a write happens before the read that sees it,
// which raw syscalls would hide (the tests' client and daemon share a
// process).
func rawWrite(fd uintptr, b []byte) (int, syscall.Errno) { return errnoOf(syscall.Write(int(fd), b)) }
func rawRead(fd uintptr, b []byte) (int, syscall.Errno)  { return errnoOf(syscall.Read(int(fd), b)) }

func errnoOf(n int, err error) (int, syscall.Errno) {
	if err != nil {
		return 0, err.(syscall.Errno)
	}
	return n, 0
}
