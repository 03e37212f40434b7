//go:build !linux

package lanerun

import "syscall"

func groupAlive(pgid int) bool { return syscall.Kill(-pgid, 0) == nil }
