//go:build !linux

package roots

import "syscall"

// procAttr puts a command in a process group of its own: a timeout kills
// the group.
func procAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }
