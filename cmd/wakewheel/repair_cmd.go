package main

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/rs/zerolog"
	"github.com/spf13/cobra"
	wakewheel "github.com/wakewheel/wakewheel"
	ob "github.com/wakewheel/wakewheel/obligations"
	"github.com/wakewheel/wakewheel/repair"
	"github.com/wakewheel/wakewheel/store"
)

// exitCorrupt is the daemon's exit status for a store it refuses as
// damaged: the fix is `wakewheel repair`.
const exitCorrupt = 3

func (a *app) repairCmd() *cobra.Command {
	var storeFlag string
	cmd := a.localVerb(&cobra.Command{
		Use:   "repair [--store DIR]",
		Short: "Salvage a damaged store and say what was kept and lost (stop the daemon first)",
		Long: `Repair a store the daemon refused as damaged (exit status 3).

The damaged store is first copied aside, byte for byte, to DIR.damaged-<time>.
Every record whose table block or journal batch passes its checksum is
salvaged and the store is rebuilt from them. The report lists, per lane, the
sequence ranges that were lost (each is kept as a gap marker: an alert in the
lane's digest and in 'wakewheel alerts'), and per kind what was kept.`,
		Args: cobra.NoArgs,
	}, func(cmd *cobra.Command, _ []string) (any, string, error) {
		dir, err := a.storeDir(cmd, storeFlag)
		if err != nil {
			return nil, "", err
		}
		if _, err := os.Stat(dir); err != nil {
			return nil, "", fmt.Errorf("repair: %w", err)
		}
		rep, err := repair.Run(dir, time.Now())
		if rep == nil {
			return nil, "", err
		}
		var text strings.Builder
		rep.Print(&text)
		if err != nil {
			err = exitError{code: 1, err: err} // printed with what was done
		}
		return rep, text.String(), err
	})
	addStoreFlag(cmd, &storeFlag)
	return cmd
}

// addStoreFlag adds --store DIR to a verb that opens the store itself, with
// the daemon stopped (restore, repair); storeDir resolves it.
func addStoreFlag(cmd *cobra.Command, dir *string) {
	cmd.Flags().StringVar(dir, "store", "", "the store directory (default: engine.store_dir)")
}

// storeDir is the store such a verb works on: its --store flag, or else
// the configuration's engine.store_dir.
func (a *app) storeDir(cmd *cobra.Command, flag string) (string, error) {
	if flag != "" {
		return flag, nil
	}
	cfg, _, err := a.config(cmd)
	return cfg.Engine.StoreDir, err
}

// corruptExit turns a daemon error that means "the store is damaged" (the
// store's own checks, or records that contradict each other) into exit
// status 3 with the repair command in the message.
func corruptExit(dir string, err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, store.ErrCorrupt):
		return exitError{code: exitCorrupt, err: err}
	case errors.Is(err, ob.ErrCorrupt):
		return exitError{code: exitCorrupt, err: store.CorruptError(dir, err)}
	}
	return err
}

// reportOpenNotes logs and alerts what the store dropped to open (a torn
// journal tail that held nothing acknowledged).
func reportOpenNotes(db *store.DB, log zerolog.Logger, now time.Time) {
	for _, n := range db.OpenNotes() {
		log.Warn().Str("store", db.Dir()).Msg(n)
		if _, err := db.AddAlert(wakewheel.Alert{Time: now, Code: "store_torn_tail", Message: n}); err != nil {
			log.Error().Err(err).Msg("recording the alert")
		}
	}
}
