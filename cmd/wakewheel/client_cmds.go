package main

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/wakewheel/wakewheel/api"
)

func (a *app) statusCmd() *cobra.Command {
	var ready bool
	cmd := a.verb(&cobra.Command{
		Use:   "status",
		Short: "Show what the daemon is doing",
		Long: `Show what the daemon is doing.

A daemon that has just started answers at once, while it loads its
deadlines: status then says "loading N%" and exits 0 (the daemon is alive),
and every other verb waits for the load (up to 30 s) or exits 75. With
--ready, status exits 75 until the load is done: a readiness check
(systemd's ExecStartPost, a Kubernetes readinessProbe) uses --ready, a
liveness check does not.`,
		Args: cobra.NoArgs,
	}, func(cmd *cobra.Command, c *api.Client, _ []string) (any, string, error) {
		st, err := c.Status(cmd.Context())
		if err != nil {
			return nil, "", err
		}
		var verdict error
		if ready && st.State == api.StateLoading {
			verdict = exitError{code: api.ExitStopping, err: fmt.Errorf("the daemon is not ready: loading its deadlines (%d%%)", st.Loading.Percent)}
		}
		return st, table(func(w io.Writer) {
			fmt.Fprintf(w, "daemon\t%s, pid %d, up %s\n", st.Version, st.PID, approx(time.Since(st.Started)))
			fmt.Fprintf(w, "store\t%s\n", st.StoreDir)
			fmt.Fprintf(w, "socket\t%s\n", st.Socket)
			if st.State == api.StateLoading && st.Loading != nil {
				fmt.Fprintf(w, "state\tloading %d%% (%d deadlines read); other requests wait for it\n", st.Loading.Percent, st.Loading.Read)
				return
			}
			fmt.Fprintf(w, "state\tready\n")
			fmt.Fprintf(w, "pending\t%d deadlines%s\n", st.Pending, byKind(st.ByKind))
			if st.NextDue != nil {
				fmt.Fprintf(w, "next due\t%s (in %s)\n", st.NextDue.Local().Format(time.DateTime), until(*st.NextDue))
			} else {
				fmt.Fprintf(w, "next due\tnothing pending: the daemon sleeps\n")
			}
			fmt.Fprintf(w, "fired\t%d deadlines, %d runs (%s), %d waiting\n", st.Fired, st.Runs, tally(st.Outcomes), st.Waiting)
			fmt.Fprintf(w, "alerts\t%d since start\n", st.Alerts)
			if st.LastAlert != nil {
				fmt.Fprintf(w, "last alert\t%s %s: %s\n", st.LastAlert.Code, st.LastAlert.Key, st.LastAlert.Message)
			}
		}), verdict
	})
	cmd.Flags().BoolVar(&ready, "ready", false, "exit 75 while the daemon is still loading its deadlines (a readiness check)")
	return cmd
}

func byKind(m map[string]int) string {
	if len(m) == 0 {
		return ""
	}
	var parts []string
	for k, v := range m {
		parts = append(parts, fmt.Sprintf("%s %d", k, v))
	}
	return " (" + strings.Join(parts, ", ") + ")"
}

func (a *app) deadlinesCmd() *cobra.Command {
	var prefix, after string
	var limit int
	cmd := a.verb(&cobra.Command{
		Use:   "deadlines",
		Short: "List pending deadlines with their due times, a page at a time, in key order",
		Args:  cobra.NoArgs,
	}, func(cmd *cobra.Command, c *api.Client, _ []string) (any, string, error) {
		page, err := c.DeadlinePage(cmd.Context(), prefix, after, limit)
		if err != nil {
			return nil, "", err
		}
		ds := page.Deadlines
		if page.Next != "" {
			fmt.Fprintf(cmd.ErrOrStderr(), "more deadlines follow: add --after %q\n", page.Next)
		}
		if len(ds) == 0 {
			return ds, "no pending deadlines\n", nil
		}
		return ds, table(func(w io.Writer) {
			fmt.Fprintln(w, "KEY\tKIND\tDUE\tIN")
			for _, d := range ds {
				fmt.Fprintf(w, "%s\t%s\t%s\t%s\n", d.Key, d.Kind, d.At.Local().Format("2006-01-02 15:04:05.000"), until(d.At))
			}
		}), nil
	})
	cmd.Flags().StringVar(&prefix, "prefix", "", "only keys starting with this")
	cmd.Flags().StringVar(&after, "after", "", "start after this key (the cursor the previous page printed)")
	cmd.Flags().IntVar(&limit, "limit", 100, fmt.Sprintf("deadlines a page, at most %d", api.MaxDeadlinePage))
	return cmd
}

func (a *app) remindCmd() *cobra.Command {
	var req api.ReminderRequest
	var cancel bool
	cmd := a.verb(&cobra.Command{
		Use:   "remind NAME (--in D | --at TIME [--reset] | --window D [--cap D] | --cancel) [--lane L [--note TEXT]]",
		Short: "Create, move or cancel a reminder (the deadline reminder/NAME)",
		Long: `Create, move or cancel a reminder: a deadline in the reminder namespace
whose firing is logged and recorded (wakewheel fires lists them).

  --in 90s          fire no later than 90s from now (pulls an existing one earlier)
  --at TIME         fire no later than TIME (RFC 3339; not in the past)
  --reset           with --in or --at: move a pending reminder to that time,
                    later too (postpone it)
  --window 5m       slide: fire after 5m without another --window call...
  --cap 1h          ...but no later than 1h after the first one
  --lane L          at fire, post an alert to lane L (coalesced per reminder):
                    how an agent schedules its own wake-up
  --note TEXT       the body of that alert
  --sync            make it durable (fsync) before answering

NAME may not hold '/', '..' or control characters.`,
		Args: cobra.ExactArgs(1),
	}, func(cmd *cobra.Command, c *api.Client, args []string) (any, string, error) {
		var res api.ReminderResult
		var err error
		if cancel {
			res, err = c.CancelReminder(cmd.Context(), args[0], req.Sync)
		} else {
			req.Name = args[0]
			res, err = c.Remind(cmd.Context(), req)
		}
		if err != nil {
			return nil, "", err
		}
		due := func() string {
			return fmt.Sprintf("%s (in %s)", res.At.Local().Format("2006-01-02 15:04:05.000"), until(*res.At))
		}
		switch {
		case res.Pending && res.Requested != nil && res.At.Before(*res.Requested):
			return res, fmt.Sprintf("%s stays due %s: it is earlier than the time asked for; --reset postpones it\n", res.Key, due()), nil
		case res.Pending:
			return res, fmt.Sprintf("%s due %s\n", res.Key, due()), nil
		case res.Changed:
			return res, fmt.Sprintf("%s cancelled\n", res.Key), nil
		}
		return res, fmt.Sprintf("%s was not pending\n", res.Key), nil
	})
	f := cmd.Flags()
	f.StringVar(&req.In, "in", "", "fire no later than this long from now")
	f.StringVar(&req.At, "at", "", "fire no later than this RFC 3339 time")
	f.StringVar(&req.Window, "window", "", "sliding window")
	f.StringVar(&req.Cap, "cap", "", "cap of the sliding window (default: the window)")
	f.StringVar(&req.Message, "message", "", "text logged when it fires")
	f.BoolVar(&req.Reset, "reset", false, "with --in or --at: set the due time even if that postpones a pending reminder")
	f.StringVar(&req.Lane, "lane", "", "post an alert to this lane when it fires")
	f.StringVar(&req.Note, "note", "", "the body of the alert posted to --lane")
	f.BoolVar(&req.Sync, "sync", false, "durable before the answer")
	f.BoolVar(&cancel, "cancel", false, "cancel the reminder")
	return cmd
}

func (a *app) alertsCmd() *cobra.Command {
	var limit int
	cmd := a.verb(&cobra.Command{
		Use:   "alerts",
		Short: "List the alert log, oldest first",
		Args:  cobra.NoArgs,
	}, func(cmd *cobra.Command, c *api.Client, _ []string) (any, string, error) {
		alerts, err := c.Alerts(cmd.Context(), limit)
		if err != nil {
			return nil, "", err
		}
		if len(alerts) == 0 {
			return alerts, "no alerts\n", nil
		}
		return alerts, table(func(w io.Writer) {
			for _, al := range alerts {
				fmt.Fprintf(w, "%s\t%s\t%s\t%s\n", al.Time.Local().Format(time.DateTime), al.Code, al.Key, al.Message)
			}
		}), nil
	})
	cmd.Flags().IntVar(&limit, "limit", 100, "how many of the newest alerts")
	return cmd
}
