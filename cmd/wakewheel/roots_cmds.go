package main

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/wakewheel/wakewheel/api"
	"github.com/wakewheel/wakewheel/roots"
)

// absPath makes a CLI path absolute against the caller's directory: the
// daemon runs elsewhere.
func absPath(p string) (string, error) {
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", fmt.Errorf("%s: %w", p, err)
	}
	return abs, nil
}

func (a *app) watchCmd() *cobra.Command {
	var ingest, reconcile string
	var skip []string
	var candidate, arm bool
	cmd := a.verb(&cobra.Command{
		Use:   "watch PATH [--ingest CMD] [--reconcile CMD] [--skip DIR]... [--arm]",
		Short: "Register a directory as a root (or update it); arm it to start watching",
		Long: `Register a directory as a root, or update the settings given.

A new root is disarmed (the factory default): nothing is watched or run
until "wakewheel arm PATH" (or --arm). Once armed, file changes coalesce
into bursts (detect.burst_silence, capped by detect.burst_cap); each burst
captures the changed set (git diff since the last capture, plus git status
with untracked files; a stat scan for plain directories) into a durable
backlog, drained through --ingest in batches: detect.drain_budget paths
first, then as many as the command handles in detect.drain_target.
After detect.reconcile_quiet without a drain, --reconcile runs.

  --ingest CMD     run with /bin/sh -c in the root for each batch: the
                   paths, root-relative, each followed by a NUL byte, on
                   stdin (xargs -0 reads them); WAKEWHEEL_ROOT,
                   WAKEWHEEL_BATCH_SIZE, WAKEWHEEL_BACKLOG, WAKEWHEEL_SINCE_REF
                   in the environment. Exit 0: ingested; other: retried
                   with backoff, then alerted; the paths are kept.
  --reconcile CMD  run with /bin/sh -c in the root after quiet, with
                   WAKEWHEEL_STORE_VERSION (new for every run). Exit 0:
                   done; 75 (EX_TEMPFAIL): conflict, retried once with a
                   new version, then the alert auto_reconcile_conflict;
                   other: the alert reconcile_failed.
  --skip DIR       a name skipped at any depth (dist) or a root-relative
                   path (web/build), beside node_modules and .git internals.
  --candidate      the reconcile skips this root.

A command's program, when it is a relative path (./scripts/index), is
taken from the directory you run watch in, like PATH, and recorded
absolute; a program that does not exist or is not executable is refused.
An empty --ingest "" or --reconcile "" removes the command. Only this
command line (or the config file) sets commands: the MCP adapter never
passes them.`,
		Args: cobra.ExactArgs(1),
	}, func(cmd *cobra.Command, c *api.Client, args []string) (any, string, error) {
		path, err := absPath(args[0])
		if err != nil {
			return nil, "", err
		}
		req := api.WatchRequest{Path: path, Arm: arm}
		f := cmd.Flags()
		if f.Changed("ingest") {
			if ingest, err = resolveCommand("ingest", ingest); err != nil {
				return nil, "", err
			}
			req.Ingest = &ingest
		}
		if f.Changed("reconcile") {
			if reconcile, err = resolveCommand("reconcile", reconcile); err != nil {
				return nil, "", err
			}
			req.Reconcile = &reconcile
		}
		warnWideRoot(cmd.ErrOrStderr(), path)
		if f.Changed("skip") {
			req.Skip = skip
		}
		if f.Changed("candidate") {
			req.Candidate = &candidate
		}
		return rootAnswer(c.Watch(cmd.Context(), req))
	})
	f := cmd.Flags()
	f.StringVar(&ingest, "ingest", "", "command run for each batch of changed paths (NUL-separated on stdin)")
	f.StringVar(&reconcile, "reconcile", "", "command run after the quiet window")
	f.StringArrayVar(&skip, "skip", nil, "directory name or root-relative path never watched (repeatable)")
	f.BoolVar(&candidate, "candidate", false, "mark the root candidate: the reconcile skips it")
	f.BoolVar(&arm, "arm", false, "arm the root too")
	return cmd
}

// pathVerb is a roots verb on one PATH argument, made absolute before it
// goes to the daemon (which runs in another directory).
func (a *app) pathVerb(use, short string, run func(cmd *cobra.Command, c *api.Client, path string) (any, string, error)) *cobra.Command {
	return a.verb(&cobra.Command{Use: use, Short: short, Args: cobra.ExactArgs(1)},
		func(cmd *cobra.Command, c *api.Client, args []string) (any, string, error) {
			path, err := absPath(args[0])
			if err != nil {
				return nil, "", err
			}
			return run(cmd, c, path)
		})
}

func (a *app) unwatchCmd() *cobra.Command {
	return a.pathVerb("unwatch PATH", "Forget a root: its watcher, backlog and deadlines", func(cmd *cobra.Command, c *api.Client, path string) (any, string, error) {
		res, err := c.Unwatch(cmd.Context(), path)
		return didOrNot(res, err, res.Removed, path+" unwatched\n", path+" was not a root\n")
	})
}

func (a *app) armCmd() *cobra.Command {
	return a.armVerb("arm", "Arm a root: watch it and run its actions (persisted)")
}
func (a *app) disarmCmd() *cobra.Command {
	return a.armVerb("disarm", "Disarm a root: stop watching it, keep it registered")
}

func (a *app) armVerb(verb, short string) *cobra.Command {
	return a.pathVerb(verb+" PATH", short, func(cmd *cobra.Command, c *api.Client, path string) (any, string, error) {
		if verb == "arm" {
			return rootAnswer(c.Arm(cmd.Context(), path))
		}
		return rootAnswer(c.Disarm(cmd.Context(), path))
	})
}

func (a *app) rootsCmd() *cobra.Command {
	cmd := a.verb(&cobra.Command{
		Use:   "roots [PATH]",
		Short: "Show every root's honest state: mode, backlog, deadlines, last error",
		Args:  cobra.MaximumNArgs(1),
	}, func(cmd *cobra.Command, c *api.Client, args []string) (any, string, error) {
		var path string
		if len(args) == 1 {
			var err error
			if path, err = absPath(args[0]); err != nil {
				return nil, "", err
			}
		}
		sts, err := c.Roots(cmd.Context(), path)
		if err != nil {
			return nil, "", err
		}
		if len(sts) == 0 && path != "" {
			return nil, "", exitError{code: api.ExitRejected, err: fmt.Errorf(
				"%s is not a root: `wakewheel roots` lists the roots, `wakewheel watch %s` registers it", path, path)}
		}
		if len(sts) == 0 {
			return sts, "no roots; register one with `wakewheel watch PATH`\n", nil
		}
		texts := make([]string, len(sts))
		for i, st := range sts {
			texts[i] = rootText(st)
		}
		return sts, strings.Join(texts, "\n"), nil
	})
	cmd.AddCommand(a.rootsRetryCmd())
	return cmd
}

// rootAnswer is a verb's answer of one root's status.
func rootAnswer(st roots.Status, err error) (any, string, error) {
	if err != nil {
		return nil, "", err
	}
	return st, rootText(st), nil
}

// didOrNot answers a verb whose result says whether it changed anything:
// yes or no is its text.
func didOrNot(res any, err error, did bool, yes, no string) (any, string, error) {
	if err != nil {
		return nil, "", err
	}
	if did {
		return res, yes, nil
	}
	return res, no, nil
}

// rootText is a root's status as the roots verbs print it.
func rootText(st roots.Status) string {
	return table(func(w io.Writer) {
		mode := st.Mode
		if st.Reason != "" {
			mode += " (" + st.Reason + ")"
		}
		fmt.Fprintf(w, "root\t%s\n", st.Path)
		fmt.Fprintf(w, "mode\t%s\n", mode)
		if st.Detail != "" {
			fmt.Fprintf(w, "\t%s\n", st.Detail)
		}
		if st.Mode == roots.ModeNotify {
			fmt.Fprintf(w, "watching\t%d directories, %d events\n", st.WatchedDirs, st.Events)
		}
		if st.Overflows > 0 {
			fmt.Fprintf(w, "overflows\t%d (kernel queue; caught up by polling)\n", st.Overflows)
		}
		fmt.Fprintf(w, "ingest\t%s\n", orNone(st.Ingest, st.GoIngest))
		fmt.Fprintf(w, "reconcile\t%s\n", orNone(st.Reconcile, st.GoRecon))
		if len(st.Skip) > 0 {
			fmt.Fprintf(w, "skip\t%s\n", strings.Join(st.Skip, ", "))
		}
		if st.Candidate {
			fmt.Fprintf(w, "candidate\tyes: reconcile skips it\n")
		}
		win := st.Windows
		fmt.Fprintf(w, "windows\tburst %s of silence (cap %s), reconcile after %s quiet (cap %s), %d paths per drain\n",
			approx(win.BurstSilence), approx(win.BurstCap), approx(win.ReconcileQuiet), approx(win.ReconcileCap), win.DrainBudget)
		fmt.Fprintf(w, "backlog\t%d paths (%d in flight)\n", st.Backlog, st.InFlight)
		if st.Running != "" {
			fmt.Fprintf(w, "running\t%s since %s\n", st.Running, st.RunningSince.Local().Format(time.TimeOnly))
		}
		if st.LastDetection != nil {
			fmt.Fprintf(w, "last detection\t%s (%d new paths; %d detections since start)\n", st.LastDetection.Local().Format(time.DateTime), st.LastChanged, st.Detections)
		} else {
			fmt.Fprintf(w, "last detection\tnever\n")
		}
		fmt.Fprintf(w, "ingested\t%d paths in %d batches since start\n", st.Ingested, st.Batches)
		if st.LastReconcile != nil {
			fmt.Fprintf(w, "last reconcile\t%s: %s\n", st.LastReconcile.Local().Format(time.DateTime), st.LastReconcileResult)
		}
		for _, d := range st.Next {
			fmt.Fprintf(w, "next %s\t%s (in %s)\n", d.Kind, d.At.Local().Format("15:04:05.000"), until(d.At))
		}
		if st.LastError != "" {
			fmt.Fprintf(w, "last error\t%s\n", st.LastError)
		}
	})
}

func orNone(cmd string, goFunc bool) string {
	switch {
	case cmd != "":
		return cmd
	case goFunc:
		return "(Go handler)"
	}
	return "(none)"
}

func (a *app) leaseCmd() *cobra.Command {
	var ttl time.Duration
	cmd := a.verb(&cobra.Command{
		Use:   "lease (acquire|renew|release|list) [NAME] [--ttl D]",
		Short: "Take, renew or give back a named advisory lease; automatic reconciles yield to it",
		Long: `Named advisory leases with a time to live. A live lease whose name is a
root's path (or a directory above it, or a path inside it) makes that
root's reconcile yield until the lease is released or expires.

  wakewheel lease acquire /src/repo --ttl 30m
  wakewheel lease renew /src/repo --ttl 30m
  wakewheel lease release /src/repo
  wakewheel lease list`,
		Args:      cobra.RangeArgs(1, 2),
		ValidArgs: []string{"acquire", "renew", "release", "list"},
	}, func(cmd *cobra.Command, c *api.Client, args []string) (any, string, error) {
		verb := args[0]
		if verb == "list" {
			ls, err := c.Leases(cmd.Context())
			if err != nil {
				return nil, "", err
			}
			if len(ls) == 0 {
				return ls, "no live leases\n", nil
			}
			return ls, table(func(w io.Writer) {
				fmt.Fprintln(w, "NAME\tEXPIRES\tIN")
				for _, l := range ls {
					fmt.Fprintf(w, "%s\t%s\t%s\n", l.Name, l.Expires.Local().Format(time.DateTime), until(l.Expires))
				}
			}), nil
		}
		if len(args) != 2 {
			return nil, "", fmt.Errorf("lease %s needs a NAME", verb)
		}
		name := args[1]
		var l roots.Lease
		var err error
		switch verb {
		case "acquire":
			l, err = c.AcquireLease(cmd.Context(), name, ttl)
		case "renew":
			l, err = c.RenewLease(cmd.Context(), name, ttl)
		case "release":
			res, err := c.ReleaseLease(cmd.Context(), name)
			return didOrNot(res, err, res.Released, "lease "+name+" released\n", "lease "+name+" was not held\n")
		default:
			return nil, "", fmt.Errorf("unknown lease verb %q: want acquire, renew, release or list", verb)
		}
		if err != nil {
			return nil, "", err
		}
		return l, fmt.Sprintf("lease %s held until %s (in %s)\n", l.Name, l.Expires.Local().Format(time.DateTime), until(l.Expires)), nil
	})
	cmd.Flags().DurationVar(&ttl, "ttl", 5*time.Minute, "time to live (acquire, renew)")
	return cmd
}
