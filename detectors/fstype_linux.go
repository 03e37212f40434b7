//go:build linux

package detectors

import (
	"os"
	"strings"

	"golang.org/x/sys/unix"
)

// Filesystems whose changes inotify does not (fully) see: network and
// userspace filesystems deliver no events for changes made elsewhere, and
// pseudo filesystems none at all. Magic numbers from statfs(2).
var unwatchableTypes = map[uint32]string{
	0x6969:     "nfs",
	0x517b:     "smb",
	0xff534d42: "cifs",
	0xfe534d42: "smb2",
	0x65735546: "fuse",
	0x01021997: "9p",
	0x00c36400: "ceph",
	0x5346414f: "afs",
	0x73757245: "coda",
	0x9fa0:     "proc",
	0x62656572: "sysfs",
}

func unwatchableFS(root string) (string, bool) {
	var st unix.Statfs_t
	if err := unix.Statfs(root, &st); err != nil {
		return "", false
	}
	name, ok := unwatchableTypes[uint32(st.Type)]
	return name, ok
}

// watchLimitHint names the kernel limit behind ENOSPC, with its value.
func watchLimitHint() string { return sysctlHint("fs.inotify.max_user_watches") }

// queueLimitHint names the kernel limit behind an overflow, with its value.
func queueLimitHint() string { return sysctlHint("fs.inotify.max_queued_events") }

func sysctlHint(name string) string {
	b, err := os.ReadFile("/proc/sys/" + strings.ReplaceAll(name, ".", "/"))
	if err != nil {
		return " (" + name + ")"
	}
	return " (" + name + "=" + strings.TrimSpace(string(b)) + ")"
}
