package roots

import (
	"io/fs"
	"os"
	"path/filepath"
)

// fileStat is what tells a path's state on disk apart without reading it.
type fileStat struct {
	exists       bool
	mtime, ctime int64 // nanoseconds
	size         int64
	ino          uint64
	mode         fs.FileMode
}

// lstatRel returns the state of the root-relative, slash-separated rel.
// The inode and change time come from the platform (sysStat), where it
// has them.
func lstatRel(root, rel string) fileStat {
	fi, err := os.Lstat(filepath.Join(root, filepath.FromSlash(rel)))
	if err != nil {
		return fileStat{}
	}
	st := fileStat{exists: true, mtime: fi.ModTime().UnixNano(), size: fi.Size(), mode: fi.Mode()}
	st.ino, st.ctime = sysStat(fi)
	return st
}
