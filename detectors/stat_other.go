//go:build !unix

package detectors

import "io/fs"

// fileStat is what StatCache compares: no content, no hash. Off unix there
// is no portable inode.
type fileStat struct {
	mtime int64 // nanoseconds
	size  int64
	mode  fs.FileMode
}

func statOf(fi fs.FileInfo) fileStat {
	return fileStat{mtime: fi.ModTime().UnixNano(), size: fi.Size(), mode: fi.Mode()}
}
