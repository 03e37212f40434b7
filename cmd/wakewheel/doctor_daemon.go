package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/wakewheel/wakewheel/api"
	"github.com/wakewheel/wakewheel/deadlines"
	"github.com/wakewheel/wakewheel/store"
)

// The doctor's checks of the daemon: its socket, and the store it keeps.

// checkSocket inspects the socket file and asks the daemon for its status;
// status is nil when no daemon answers.
func checkSocket(ctx context.Context, path string) (finding, *api.Status) {
	f := finding{Check: "socket", Level: levelOK}
	start := "start the daemon: `wakewheel daemon`, or `systemctl --user enable --now wakewheel` with packaging/wakewheel.service"
	if path == "" {
		f.Level, f.Detail = levelSkipped, "the configuration did not resolve engine.socket_path"
		return f, nil
	}
	fi, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		f.Level, f.Detail, f.Fix = levelWarn, path+": no daemon is running", start
		return f, nil
	case err != nil:
		f.Level, f.Detail, f.Fix = levelProblem, err.Error(), "check the permissions of "+filepath.Dir(path)
		return f, nil
	case fi.Mode()&fs.ModeSocket == 0:
		f.Level, f.Detail = levelProblem, path+" exists and is not a socket"
		f.Fix = "move it away (rm " + path + ") or set engine.socket_path elsewhere"
		return f, nil
	}
	var problems, fixes []string
	if perm := fi.Mode().Perm(); perm != 0o600 {
		problems = append(problems, fmt.Sprintf("mode %04o, want 0600", perm))
		fixes = append(fixes, "restart the daemon (it creates the socket 0600), or chmod 600 "+path)
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) != os.Getuid() {
		problems = append(problems, fmt.Sprintf("owned by uid %d, not you (uid %d)", st.Uid, os.Getuid()))
		fixes = append(fixes, "each user runs their own daemon: set engine.socket_path to a path of your own")
	}
	if dir, err := os.Stat(filepath.Dir(path)); err == nil && dir.Mode().Perm()&0o077 != 0 {
		problems = append(problems, fmt.Sprintf("directory mode %04o, want 0700", dir.Mode().Perm()))
		fixes = append(fixes, "chmod 700 "+filepath.Dir(path))
	}
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	st, err := api.NewClient(path).Status(ctx)
	var status *api.Status
	if err != nil {
		problems = append(problems, "no daemon answers on it (a stale socket)")
		fixes = append(fixes, start+" (it replaces a stale socket)")
	} else {
		status = &st
	}
	f.Detail = path
	switch {
	case status != nil && status.State == api.StateLoading && status.Loading != nil:
		f.Detail += fmt.Sprintf(": the daemon answers (pid %d, %s), still loading its deadlines (%d%%)", status.PID, status.Version, status.Loading.Percent)
	case status != nil:
		f.Detail += fmt.Sprintf(": the daemon answers (pid %d, %s, %d pending)", status.PID, status.Version, status.Pending)
	}
	if len(problems) > 0 {
		f.Level, f.Detail, f.Fix = levelProblem, path+": "+strings.Join(problems, "; "), strings.Join(fixes, "; ")
	}
	return f, status
}

// checkStore asks the running daemon, or else opens the store itself.
func checkStore(dir string, status *api.Status) finding {
	f := finding{Check: "store", Level: levelOK}
	if dir == "" && status == nil {
		f.Level, f.Detail = levelSkipped, "the configuration did not resolve engine.store_dir"
		return f
	}
	if status != nil {
		f.Detail = fmt.Sprintf("%s: open in the daemon, %d deadlines pending, %d alerts since start", status.StoreDir, status.Pending, status.Alerts)
		if status.State == api.StateLoading && status.Loading != nil {
			f.Detail = fmt.Sprintf("%s: open in the daemon, loading its deadlines (%d%%, %d read)", status.StoreDir, status.Loading.Percent, status.Loading.Read)
		}
		if filepath.Clean(status.StoreDir) != filepath.Clean(dir) {
			f.Level = levelWarn
			f.Fix = "the daemon uses another store than this configuration names (" + dir + "): run doctor with the daemon's config"
		}
		return f
	}
	if _, err := os.Stat(filepath.Join(dir, "CURRENT")); errors.Is(err, fs.ErrNotExist) {
		f.Detail = dir + ": no store yet (the first `wakewheel daemon` creates it)"
		return f
	}
	db, err := store.Open(dir, store.Options{})
	if err != nil {
		f.Level, f.Detail = levelProblem, err.Error()
		switch {
		case errors.Is(err, store.ErrCorrupt):
			f.Fix = "stop any daemon, then run `wakewheel repair`"
		case errors.Is(err, store.ErrSchemaTooNew):
			f.Fix = "this store was written by a newer wakewheel: upgrade this binary"
		case strings.Contains(err.Error(), "resource temporarily unavailable"):
			f.Fix = "another process holds the store's lock (a daemon that does not answer on the socket?): stop it (lsof +D " + dir + ")"
		default:
			f.Fix = "check that " + dir + " is readable and writable by you"
		}
		return f
	}
	n := 0
	loadErr := db.LoadDeadlines(func(deadlines.Deadline) error { n++; return nil })
	if err := errors.Join(loadErr, db.Close()); err != nil {
		f.Level, f.Detail, f.Fix = levelProblem, err.Error(), "stop any daemon, then run `wakewheel repair`"
		return f
	}
	f.Detail = fmt.Sprintf("%s: healthy, %d deadlines persisted (opened directly: no daemon runs)", dir, n)
	return f
}
