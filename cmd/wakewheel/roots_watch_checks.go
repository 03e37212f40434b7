package main

import (
	"fmt"
	"io"
	"os"

	"github.com/wakewheel/wakewheel/internal/supervise"
)

// resolveCommand makes a --ingest or --reconcile command line independent
// of where it will run: a relative program (./scripts/index) is taken
// from the directory `watch` runs in, as PATH is, and written back
// absolute; a program that does not exist or cannot be executed is
// refused now, not at the first run.
func resolveCommand(flag, line string) (string, error) {
	if line == "" {
		return line, nil
	}
	cwd, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("--%s: the current directory: %w", flag, err)
	}
	out, err := supervise.Resolve(line, cwd)
	if err != nil {
		return "", fmt.Errorf("--%s %q: %w", flag, line, unsupervised(err))
	}
	return out, nil
}

// unsupervised drops the runner package's prefix from a user's error.
func unsupervised(err error) error {
	msg := err.Error()
	prefix := supervise.ErrBadCommand.Error() + ": "
	if len(msg) > len(prefix) && msg[:len(prefix)] == prefix {
		return fmt.Errorf("%s", msg[len(prefix):])
	}
	return err
}

// warnWideRoot warns about a root that takes in the whole machine.
func warnWideRoot(w io.Writer, path string) {
	if path == "/" {
		fmt.Fprintln(w, "warning: watching / takes in every file of the machine (the daemon's own files are left out);"+
			" watch the directories you work in instead")
	}
}
