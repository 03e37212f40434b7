package detectors

import (
	"io/fs"
	"os"
	"path/filepath"
)

// fileStat is a path's state on disk as far as change detection cares,
// read without opening the file: the StatCache's entries and the git
// tracker's memory of a captured set are both this. The inode and change
// time come from the platform (sysStat), where it has them.
type fileStat struct {
	exists       bool
	mtime, ctime int64 // nanoseconds
	size         int64
	ino          uint64
	mode         fs.FileMode
}

// statOf is fi's state (fi from an lstat).
func statOf(fi fs.FileInfo) fileStat {
	st := fileStat{exists: true, mtime: fi.ModTime().UnixNano(), size: fi.Size(), mode: fi.Mode()}
	st.ino, st.ctime = sysStat(fi)
	return st
}

// lstatRel is the state of the root-relative, slash-separated rel; the
// zero fileStat when it does not exist.
func lstatRel(root, rel string) fileStat {
	fi, err := os.Lstat(filepath.Join(root, filepath.FromSlash(rel)))
	if err != nil {
		return fileStat{}
	}
	return statOf(fi)
}
