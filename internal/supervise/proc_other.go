//go:build !linux

package supervise

import "syscall"

// procAttr puts the child in a process group of its own (no Pdeathsig
// outside Linux: a killed daemon can leave its command running).
func procAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }
