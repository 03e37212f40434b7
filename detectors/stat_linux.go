//go:build linux

package detectors

import (
	"io/fs"
	"syscall"
)

// sysStat is fi's inode and change time (nanoseconds).
func sysStat(fi fs.FileInfo) (ino uint64, ctime int64) {
	if sys, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(sys.Ino), sys.Ctim.Nano()
	}
	return 0, 0
}
