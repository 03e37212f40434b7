package main

import (
	"os"
	"path/filepath"
	"strconv"

	"github.com/wakewheel/wakewheel/configs"
)

// ownFiles are the daemon's own files, which no root may detect: the
// store directory, the socket, and the files its standard output and
// error go to when they are files (a log redirected into a watched
// repository would otherwise feed the daemon its own lines).
func ownFiles(cfg configs.Config) []string {
	var out []string
	add := func(p string) {
		if p == "" {
			return
		}
		if abs, err := filepath.Abs(p); err == nil {
			p = abs
		}
		if real, err := filepath.EvalSymlinks(p); err == nil {
			p = real
		}
		out = append(out, p)
	}
	add(cfg.Engine.StoreDir)
	add(cfg.Engine.SocketPath)
	for _, f := range []*os.File{os.Stdout, os.Stderr} {
		if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() {
			if p, err := os.Readlink("/proc/self/fd/" + strconv.Itoa(int(f.Fd()))); err == nil && filepath.IsAbs(p) {
				add(p)
			}
		}
	}
	return out
}
