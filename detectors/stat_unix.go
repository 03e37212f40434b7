//go:build unix

package detectors

import (
	"io/fs"
	"syscall"
)

// fileStat is what StatCache compares: no content, no hash.
type fileStat struct {
	mtime int64 // nanoseconds
	size  int64
	ino   uint64
	mode  fs.FileMode
}

func statOf(fi fs.FileInfo) fileStat {
	st := fileStat{mtime: fi.ModTime().UnixNano(), size: fi.Size(), mode: fi.Mode()}
	if sys, ok := fi.Sys().(*syscall.Stat_t); ok {
		st.ino = uint64(sys.Ino)
	}
	return st
}
