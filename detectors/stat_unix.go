//go:build unix && !linux

package detectors

import (
	"io/fs"
	"syscall"
)

// sysStat is fi's inode; the change time is left out where Stat_t names
// it differently per system.
func sysStat(fi fs.FileInfo) (ino uint64, ctime int64) {
	if sys, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(sys.Ino), 0
	}
	return 0, 0
}
