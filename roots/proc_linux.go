package roots

import "syscall"

// procAttr puts a command in a process group of its own (a timeout kills
// the group: the shell and what it started) and asks the kernel to kill
// it if the daemon dies (SIGKILL included), so that a restarted daemon
// never runs a root's command beside an orphan of the previous one.
func procAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
