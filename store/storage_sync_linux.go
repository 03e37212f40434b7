package store

import "syscall"

// haveRawSync: journals sync with rawFsync (storage_sync.go).
const haveRawSync = true

// rawFsync is fsync(fd) as a raw system call (storage_sync.go), retried
// when a signal interrupts it.
func rawFsync(fd uintptr) syscall.Errno {
	for {
		_, _, errno := syscall.RawSyscall(syscall.SYS_FSYNC, fd, 0, 0)
		if errno != syscall.EINTR {
			return errno
		}
	}
}
