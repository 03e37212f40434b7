//go:build !linux

package api

import "syscall"

// Without raw syscalls here, posts take the ordinary path (rawtrip.go).
func rawWrite(uintptr, []byte) (int, syscall.Errno) { return 0, syscall.ENOTSUP }
func rawRead(uintptr, []byte) (int, syscall.Errno)  { return 0, syscall.ENOTSUP }
func rawConn(any) syscall.RawConn                   { return nil }
