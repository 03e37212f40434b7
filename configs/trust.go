package configs

import (
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"

	"github.com/wakewheel/wakewheel/internal/filetrust"
	"github.com/wakewheel/wakewheel/internal/supervise"
)

// ErrUntrusted: the config file, or a file it names, could be changed by
// another user. Load refuses it, at start and on every reload: a file
// another user can write would let them choose the commands the daemon
// runs as its user. It wraps filetrust.ErrUntrusted.
var ErrUntrusted = fmt.Errorf("config: %w", filetrust.ErrUntrusted)

// checkFileTrust refuses a config file that another user owns or can
// write to (owned by this user or root, no group/other write, in a
// directory only they can change), saying how to fix it.
func checkFileTrust(path string) error {
	if err := filetrust.CheckFile(path); err != nil {
		return fmt.Errorf("%w: refusing the config file: %w", ErrUntrusted, untrustedReason(err))
	}
	return nil
}

// checkNamedFiles applies the config file's rule to the files it names:
// the program of each command line (a root's ingest and reconcile, a
// lane's wake_hook) when it is a path, found by supervise.Program (the
// parse the runner's own check uses); the beacon's key file and the
// fleet's credentials, which must also be unreadable by others; the fleet's
// certificates. A bare program name is found on PATH and names no file of
// the config's; a path that does not exist is left to the check that runs
// the command.
func checkNamedFiles(c *Config, path string, env lookup) []error {
	origin := sourceFile + " " + path
	var errs []error
	check := func(key, line, dir string) {
		prog, ok := supervise.Program(expandHome(line, env), dir)
		if !ok {
			return
		}
		err := filetrust.CheckFile(prog)
		if err == nil || errors.Is(err, fs.ErrNotExist) {
			return
		}
		errs = append(errs, &KeyError{Key: key, Value: line, Origin: origin,
			Problem: "names " + prog + ", which is not trusted: " + untrustedReason(err).Error(), Err: ErrUntrusted})
	}
	for i, r := range c.Roots {
		check(fmt.Sprintf("roots[%d].ingest", i), r.Ingest, r.Path)
		check(fmt.Sprintf("roots[%d].reconcile", i), r.Reconcile, r.Path)
	}
	for _, f := range []struct {
		key, path string
		secret    bool
	}{
		{"beacon.key_file", c.Beacon.KeyFile, true},
		{"fleet.creds", c.Fleet.Creds, true},
		{"fleet.nkey_seed", c.Fleet.NKeySeed, true},
		{"fleet.tls.key", c.Fleet.TLS.Key, true},
		{"fleet.tls.cert", c.Fleet.TLS.Cert, false},
		{"fleet.tls.ca", c.Fleet.TLS.CA, false},
	} {
		if f.path == "" {
			continue
		}
		check := filetrust.CheckFile
		if f.secret {
			check = filetrust.CheckSecret
		}
		if err := check(f.path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, &KeyError{Key: f.key, Value: f.path, Origin: origin,
				Problem: "not trusted: " + untrustedReason(err).Error(), Err: ErrUntrusted})
		}
	}
	names := make([]string, 0, len(c.Lanes))
	for name := range c.Lanes {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		check("lanes."+name+".wake_hook", c.Lanes[name].WakeHook, "")
	}
	return errs
}

// untrustedReason drops filetrust's sentinel text from err: the caller's
// message already says the file is not trusted.
func untrustedReason(err error) error {
	msg, ok := strings.CutPrefix(err.Error(), filetrust.ErrUntrusted.Error()+": ")
	if !ok {
		return err
	}
	return errors.New(msg)
}
