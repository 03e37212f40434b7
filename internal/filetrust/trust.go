package filetrust

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"syscall"
)

// ErrUntrusted marks a file or directory another user could change.
var ErrUntrusted = errors.New("not trusted")

// writableByOthers are the group and other write bits.
const writableByOthers = 0o022

// PrivateDir makes sure dir exists and is private: a missing dir (and its
// missing parents) is created with mode 0700; an existing one must pass
// CheckDir.
func PrivateDir(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("create directory %s: %w", dir, err)
	}
	return CheckDir(dir)
}

// CheckDir refuses a directory that is not owned by this process's uid, or
// that group or others can write to: another user could replace what is
// in it (a socket, say) with their own.
func CheckDir(dir string) error {
	fi, err := os.Stat(dir)
	if err != nil {
		return err
	}
	if !fi.IsDir() {
		return fmt.Errorf("%w: %s is not a directory", ErrUntrusted, dir)
	}
	if uid, ok := owner(fi); ok && uid != os.Getuid() {
		return fmt.Errorf("%w: directory %s is owned by %s, not by you (%s); remove it so it is created again as yours, or choose another directory",
			ErrUntrusted, dir, DescribeUID(uid), DescribeUID(os.Getuid()))
	}
	if perm := fi.Mode().Perm(); perm&writableByOthers != 0 {
		return fmt.Errorf("%w: directory %s is mode %04o: group or others can write to it, so another user could replace what is in it; fix it with `chmod 700 %s`",
			ErrUntrusted, dir, perm, dir)
	}
	return nil
}

// CheckFile refuses a file that is not owned by this process's uid or by
// root, that group or others can write to, or whose directory another user
// can write to. Symbolic links are followed: the file checked is the one
// that would be read.
func CheckFile(path string) error {
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return err
	}
	fi, err := os.Stat(real)
	if err != nil {
		return err
	}
	shown := path
	if real != path {
		shown = fmt.Sprintf("%s (-> %s)", path, real)
	}
	if err := trustedOwner(fi, shown, real); err != nil {
		return err
	}
	if perm := fi.Mode().Perm(); perm&writableByOthers != 0 {
		return fmt.Errorf("%w: %s is mode %04o: group or others can write to it, so another user could change what it says; fix it with `chmod go-w %s`",
			ErrUntrusted, shown, perm, real)
	}
	dir := filepath.Dir(real)
	di, err := os.Stat(dir)
	if err != nil {
		return err
	}
	if err := trustedOwner(di, "directory "+dir+" of "+shown, dir); err != nil {
		return err
	}
	if perm := di.Mode().Perm(); perm&writableByOthers != 0 && di.Mode()&fs.ModeSticky == 0 {
		return fmt.Errorf("%w: directory %s of %s is mode %04o: group or others can write to it, so another user could replace the file; fix it with `chmod go-w %s`",
			ErrUntrusted, dir, shown, perm, dir)
	}
	return nil
}

// trustedOwner refuses fi unless this uid or root owns it.
func trustedOwner(fi fs.FileInfo, shown, path string) error {
	uid, ok := owner(fi)
	if !ok || uid == os.Getuid() || uid == 0 {
		return nil
	}
	return fmt.Errorf("%w: %s is owned by %s, not by you (%s) or root; fix it with `chown %d %s` (as root), or use a copy of your own",
		ErrUntrusted, shown, DescribeUID(uid), DescribeUID(os.Getuid()), os.Getuid(), path)
}

// owner is the uid that owns fi, when the platform says.
func owner(fi fs.FileInfo) (int, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return int(st.Uid), true
}

// DescribeUID is "uid 1001 (alice)", or "uid 1001" when the name is not
// known.
func DescribeUID(uid int) string {
	u, err := user.LookupId(strconv.Itoa(uid))
	if err != nil {
		return "uid " + strconv.Itoa(uid)
	}
	return fmt.Sprintf("uid %d (%s)", uid, u.Username)
}

// CheckSecret is CheckFile for a file that holds a secret (a key): it must
// also be unreadable by group and others, as ssh requires of a private key.
func CheckSecret(path string) error {
	if err := CheckFile(path); err != nil {
		return err
	}
	fi, err := os.Stat(path)
	if err != nil {
		return err
	}
	if perm := fi.Mode().Perm(); perm&0o077 != 0 {
		return fmt.Errorf("%w: %s holds a secret and is mode %04o: group or others can read it; fix it with `chmod 600 %s`",
			ErrUntrusted, path, perm, path)
	}
	return nil
}
