//go:build !linux

package store

import "syscall"

// haveRawSync: the raw fsync is Linux's only (storage_sync.go);
// elsewhere journals sync as goleveldb has them.
const haveRawSync = false

func rawFsync(uintptr) syscall.Errno { return syscall.ENOSYS }
