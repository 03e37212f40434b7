package supervise

import "syscall"

// procAttr puts the child in a process group of its own and asks the
// kernel to kill it when the daemon dies (SIGKILL included).
func procAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
