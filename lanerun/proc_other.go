//go:build !linux

package lanerun

import "syscall"

func procAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }

func groupAlive(pgid int) bool { return syscall.Kill(-pgid, 0) == nil }
