package detectors

import (
	"os"
	"path/filepath"
)

// RootDir tells whether a root's directory is there, and where it went.

// DirIdentity is the inode of the directory dir (0 when it is not a
// directory or the platform has none): what finds a renamed root.
func DirIdentity(dir string) (ino uint64, ok bool) {
	fi, err := os.Lstat(dir)
	if err != nil || !fi.IsDir() {
		return 0, false
	}
	ino, _ = sysStat(fi)
	return ino, true
}

// FindRenamed looks beside the vanished directory dir for the directory
// with inode ino: where `mv dir elsewhere-in-the-same-parent` put it. It
// returns "" when there is none (removed, moved farther away, or no inode
// on this platform).
func FindRenamed(dir string, ino uint64) string {
	if ino == 0 {
		return ""
	}
	parent := filepath.Dir(dir)
	entries, err := os.ReadDir(parent)
	if err != nil {
		return ""
	}
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		p := filepath.Join(parent, e.Name())
		if got, ok := DirIdentity(p); ok && got == ino && p != dir {
			return p
		}
	}
	return ""
}
