package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"
	"github.com/wakewheel/wakewheel/api"
	"github.com/wakewheel/wakewheel/store"
)

// backupCapability is the backup route: the daemon writes a snapshot of
// its store on request.
func backupCapability(d *daemon) capability {
	return capability{name: "backup", serve: func(context.Context) error {
		api.RegisterBackup(d.srv, d.db)
		return nil
	}}
}

func (a *app) backupCmd() *cobra.Command {
	return a.verb(&cobra.Command{
		Use:   "backup DIR",
		Short: "Write a consistent snapshot of the running daemon's store into the new directory DIR",
		Long: `Ask the running daemon for a backup: a consistent snapshot of its store (one
point of its history, taken while it keeps serving) written into DIR, a new
directory. DIR is a store: run a daemon on it with --store DIR, or put it back
with 'wakewheel restore DIR' when the disk holding the store died.`,
		Args: cobra.ExactArgs(1),
	}, func(cmd *cobra.Command, c *api.Client, args []string) (any, string, error) {
		dir, err := filepath.Abs(args[0])
		if err != nil {
			return nil, "", exitError{code: 2, err: err}
		}
		res, err := c.Backup(cmd.Context(), dir)
		return res, fmt.Sprintf("backup of %d records written to %s\n", res.Records, res.Path), err
	})
}

func (a *app) restoreCmd() *cobra.Command {
	var storeFlag string
	cmd := a.localVerb(&cobra.Command{
		Use:   "restore BACKUP [--store DIR]",
		Short: "Replace the store with a backup (stop the daemon first)",
		Long: `Replace the store with a backup made by 'wakewheel backup'. The backup is
checked first (it must open and read whole); the store it replaces, if any,
is kept as DIR.replaced-<time>. The daemon must be stopped.`,
		Args: cobra.ExactArgs(1),
	}, func(cmd *cobra.Command, args []string) (any, string, error) {
		dir, err := a.storeDir(cmd, storeFlag)
		if err != nil {
			return nil, "", err
		}
		from, err := filepath.Abs(args[0])
		if err != nil {
			return nil, "", exitError{code: 2, err: err}
		}
		if _, err := os.Stat(from); err != nil {
			return nil, "", exitError{code: 2, err: fmt.Errorf("restore: %w", err)}
		}
		kept, err := store.Restore(from, dir, time.Now().UTC().Format("20060102T150405Z"))
		if err != nil {
			return nil, "", err
		}
		text := fmt.Sprintf("store %s restored from %s\n", dir, from)
		if kept != "" {
			text += fmt.Sprintf("the store it replaced is kept in %s\n", kept)
		}
		return map[string]string{"store": dir, "from": from, "kept": kept}, text, nil
	})
	addStoreFlag(cmd, &storeFlag)
	return cmd
}
