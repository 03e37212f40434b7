package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
	"github.com/syndtr/goleveldb/leveldb/storage"
	"github.com/wakewheel/wakewheel/api"
	"github.com/wakewheel/wakewheel/internal/clock"
	"github.com/wakewheel/wakewheel/liveness"
	ob "github.com/wakewheel/wakewheel/obligations"
	"github.com/wakewheel/wakewheel/store"
	"github.com/wakewheel/wakewheel/wakes"
)

// obligationsCmds returns `post` and adds the other verbs of the wake
// doctrine to the root (the root's command list has one line for them).
func (a *app) obligationsCmds() *cobra.Command {
	a.root.AddCommand(a.waitCmd(), a.digestCmd(), a.ackCmd(), a.parkCmd(), a.resumeCmd(), a.lanesCmd(),
		a.ledgerCmd(), a.canaryCmd(), a.monitorCmd())
	return a.postCmd()
}

func (a *app) postCmd() *cobra.Command {
	var req api.PostRequest
	var locator string
	cmd := a.verb(&cobra.Command{
		Use:   "post --lane L --class C [--id ID] [--locator repo=..,issue=..,sha=..,file=..] BODY...",
		Short: "Post an obligation to a lane (durable before it is acknowledged)",
		Long: `Post a human, peer, digest or alert obligation. Peer, digest and alert need a
hard locator (repo plus issue, sha or file). A re-posted --id is answered with
the original. The lane must be open (wait, lanes --open) unless --create.
BODY "-" reads stdin.`,
		Args: cobra.MinimumNArgs(1),
	}, func(cmd *cobra.Command, c *api.Client, args []string) (any, string, error) {
		req.Body = strings.Join(args, " ")
		if req.Body == "-" {
			b, err := io.ReadAll(io.LimitReader(cmd.InOrStdin(), api.MaxRequestBytes+1))
			if err != nil {
				return nil, "", exitError{code: 1, err: err}
			}
			req.Body = string(b)
		}
		var err error
		if req.Locator, err = parseLocator(locator); err != nil {
			return nil, "", exitError{code: 2, err: err}
		}
		if req.Wait != "" && req.Wait != "forwarded" {
			return nil, "", exitError{code: 2, err: fmt.Errorf("--wait %q: the only state to wait for is forwarded", req.Wait)}
		}
		res, err := c.Post(cmd.Context(), req)
		err = laneHint("post", req.Lane, err)
		o, what := res.Obligation, map[bool]string{false: "posted", true: "duplicate of"}[res.Duplicate]
		if res.Route == "queued" || res.Route == "forwarded" { // homed on another host: its home numbers it
			return res, fmt.Sprintf("%s %s %s id=%s\n", res.Route, o.Lane, o.Class, o.ID), err
		}
		return res, fmt.Sprintf("%s %s#%d %s id=%s\n", what, o.Lane, o.Seq, o.Class, o.ID), err
	})
	requiredString(cmd, &req.Lane, "lane", "lane to post to")
	requiredString(cmd, &req.Class, "class", "human, peer, digest or alert")
	f := cmd.Flags()
	f.StringVar(&req.ID, "id", "", "idempotency id (default: a fresh one, made before sending, so a retry after a failed connection is stored once)")
	f.StringVar(&locator, "locator", "", "hard locator: repo=R,issue=N,sha=S,file=F")
	f.StringVar(&req.Key, "key", "", "coalescing key of an alert")
	f.BoolVar(&req.Create, "create", false, "create the lane if nobody opened it")
	f.StringVar(&req.Wait, "wait", "", "in a fleet, for a lane homed elsewhere: \"forwarded\" answers once the broker has it, not once it is queued here")
	return cmd
}

func parseLocator(s string) (ob.Locator, error) {
	var l ob.Locator
	if s == "" {
		return l, nil
	}
	fields := map[string]*string{"repo": &l.Repo, "issue": &l.Issue, "sha": &l.SHA, "file": &l.File}
	for _, part := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(part, "=")
		p, known := fields[strings.TrimSpace(k)]
		if !ok || !known {
			return l, fmt.Errorf("--locator %q: want key=value pairs with keys repo, issue, sha, file", part)
		}
		*p = v
	}
	return l, nil
}

func (a *app) waitCmd() *cobra.Command {
	var lane, who, after string
	var timeout time.Duration
	var open bool
	cmd := a.verb(&cobra.Command{
		Use:   "wait --lane L [--open] [--timeout D]",
		Short: "Block until the lane has unconsumed work, then print its digest",
		Long: `Block until the lane wakes, then print (deliver) its digest since CONSUMED; ack
it when done. Unacked work is printed at once, so a restarted agent sees again
all it has not acked. --after WAKE_ID waits for a newer wake or a re-wake.
A lane that does not exist is an error (a typo must not create a lane);
--open opens it first. Exit status: 0 woken, 124 timeout, 2 rejected, 75 the
daemon is stopping (call again once it is back), 1 failure.
Wake hooks are the operator's: lanes.<lane>.wake_hook in the config file.`,
		Args: cobra.NoArgs,
	}, func(cmd *cobra.Command, c *api.Client, _ []string) (any, string, error) {
		var deadline time.Time
		if timeout > 0 {
			deadline = time.Now().Add(timeout)
		}
		if open {
			if _, err := c.OpenLane(cmd.Context(), lane); err != nil {
				return nil, "", laneHint("wait", lane, err)
			}
		}
		for { // long polls of at most api.MaxWait each
			step := api.MaxWait
			if !deadline.IsZero() {
				if step = min(step, time.Until(deadline)); step <= 0 {
					return nil, "", exitError{code: exitWaitTimeout, err: fmt.Errorf("no wake of lane %s within %s", lane, timeout)}
				}
			}
			res, err := c.WaitOnce(cmd.Context(), lane, who, after, step)
			if err != nil {
				return nil, "", laneHint("wait", lane, err)
			}
			if res.Woke && res.Digest != nil {
				return res.Digest, res.Digest.Text(), nil
			}
		}
	})
	requiredString(cmd, &lane, "lane", "lane to wait on")
	f := cmd.Flags()
	f.StringVar(&who, "who", "", "consumer name shown in the digest")
	f.StringVar(&after, "after", "", "the wake id already held: wait for a newer wake or a re-wake")
	f.DurationVar(&timeout, "timeout", 0, "give up after this long (0: wait forever)")
	f.BoolVar(&open, "open", false, "open the lane if it does not exist yet")
	return cmd
}

// laneCmd builds a verb that takes --lane and --who.
func (a *app) laneCmd(use, short string, run func(cmd *cobra.Command, c *api.Client, lane, who string) (any, string, error)) *cobra.Command {
	var lane, who string
	cmd := a.verb(&cobra.Command{Use: use, Short: short, Args: cobra.NoArgs},
		func(cmd *cobra.Command, c *api.Client, _ []string) (any, string, error) {
			v, text, err := run(cmd, c, lane, who)
			return v, text, laneHint(cmd.Name(), lane, err)
		})
	requiredString(cmd, &lane, "lane", "lane")
	cmd.Flags().StringVar(&who, "who", "", "consumer name shown in the digest")
	return cmd
}

func (a *app) digestCmd() *cobra.Command {
	return a.laneCmd("digest --lane L", "Print the lane's digest without delivering it",
		func(cmd *cobra.Command, c *api.Client, lane, who string) (any, string, error) {
			d, err := c.Digest(cmd.Context(), lane, who)
			return d, d.Text(), err
		})
}

func (a *app) ackCmd() *cobra.Command {
	var upto uint64
	var action string
	cmd := a.laneCmd("ack --lane L --upto SEQ [--action NAME]", "Consume the lane up to SEQ (cumulative, synced)",
		func(cmd *cobra.Command, c *api.Client, lane, _ string) (any, string, error) {
			st, err := c.Ack(cmd.Context(), lane, upto, action)
			return st, fmt.Sprintf("%s consumed up to %d of %d\n", lane, st.Consumed, st.Head), err
		})
	cmd.Flags().Uint64Var(&upto, "upto", 0, "last sequence number consumed (required)")
	cmd.Flags().StringVar(&action, "action", "", "the consequential action taken (a qualified action in the ledger)")
	cmd.MarkFlagRequired("upto")
	return cmd
}

func (a *app) parkCmd() *cobra.Command {
	return a.laneCmd("park --lane L", "Checkpoint the CONSUMED cursor before an agent clears its context",
		func(cmd *cobra.Command, c *api.Client, lane, _ string) (any, string, error) {
			cp, err := c.Park(cmd.Context(), lane)
			return cp, fmt.Sprintf("parked %s: consumed %d, head %d; the checkpoint is durable, the context may be cleared\n",
				lane, cp.Consumed, cp.Head), err
		})
}

func (a *app) resumeCmd() *cobra.Command {
	return a.laneCmd("resume --lane L", "Print the digest since the lane's last park (delivered)",
		func(cmd *cobra.Command, c *api.Client, lane, who string) (any, string, error) {
			d, err := c.Resume(cmd.Context(), lane, who, nil)
			return d, d.Text(), err
		})
}

func (a *app) lanesCmd() *cobra.Command {
	var open, closing string
	var force bool
	cmd := a.verb(&cobra.Command{Use: "lanes [--open LANE | --close LANE [--force]]", Short: "List lanes and their cursors, open a lane for producers, or close one", Args: cobra.NoArgs},
		func(cmd *cobra.Command, c *api.Client, _ []string) (any, string, error) {
			if closing != "" {
				return closeLane(cmd, c, closing, force)
			}
			if force {
				return nil, "", exitError{code: 2, err: errors.New("--force goes with --close LANE")}
			}
			if open != "" {
				if _, err := c.OpenLane(cmd.Context(), open); err != nil {
					return nil, "", laneHint("lanes", open, err)
				}
			}
			ls, err := c.Lanes(cmd.Context())
			var b strings.Builder
			w := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
			fmt.Fprintln(w, "LANE\tHEAD\tRECEIVED\tCONSUMED\tUNCONSUMED\tWAKE")
			for _, l := range ls {
				fmt.Fprintf(w, "%s\t%d\t%d\t%d\t%d\t%s\n", l.Lane, l.Head, l.Received, l.Consumed, l.Counts.Total(), l.WakeID)
			}
			w.Flush()
			b.WriteString(agentDelivery(cmd.Context(), c))
			return ls, b.String(), err
		})
	cmd.Flags().StringVar(&open, "open", "", "open this lane first")
	cmd.Flags().StringVar(&closing, "close", "", "close this lane: delete it and its history (refused while it holds unconsumed work)")
	cmd.Flags().BoolVar(&force, "force", false, "with --close: discard unconsumed work")
	cmd.MarkFlagsMutuallyExclusive("open", "close")
	return cmd
}

// readLedger reads the ledger "daemon" (the daemon's), "-" (stdin) or a JSONL file.
func readLedger(cmd *cobra.Command, c *api.Client, src string) ([]ob.Entry, error) {
	if src == "daemon" {
		return c.LedgerAll(cmd.Context())
	}
	r := cmd.InOrStdin()
	if src != "-" {
		f, err := os.Open(src)
		if err != nil {
			return nil, exitError{code: 2, err: err}
		}
		defer f.Close()
		r = f
	}
	entries, err := ob.DecodeJSONL(r)
	if err != nil {
		return nil, exitError{code: 2, err: fmt.Errorf("%s: %w", src, err)}
	}
	return entries, nil
}

func (a *app) ledgerCmd() *cobra.Command {
	var file string
	report := a.verb(&cobra.Command{Use: "report [--file LEDGER.jsonl]", Short: "Judge a ledger: how soon obligations were consumed and acted on, no-op wakes, missed canaries", Args: cobra.NoArgs},
		func(cmd *cobra.Command, c *api.Client, _ []string) (any, string, error) {
			entries, err := readLedger(cmd, c, file)
			if err != nil {
				return nil, "", err
			}
			slos, err := a.slos(cmd)
			r := ob.ComputeReport(entries, slos)
			note := ""
			if cfg, _, cerr := a.config(cmd); cerr == nil && cfg.Fleet.URL != "" && file == "daemon" {
				// In a fleet, source parity is part of the safety vector.
				pctx, cancel := context.WithTimeout(cmd.Context(), 2*time.Minute)
				p, perr := homeParity(pctx, cfg, c, entries)
				cancel()
				if perr != nil {
					r.SourceParityError = perr.Error()
				} else {
					r.AddSourceParity(p.InStream, len(p.Missing))
					if len(p.Missing) > 0 {
						note = fmt.Sprintf("source parity: %d obligation(s) the broker acknowledged for %s are missing; see wakewheel fleet parity\n", len(p.Missing), p.Home)
					}
				}
			}
			return r, r.String() + note, err
		})
	report.Flags().StringVar(&file, "file", "daemon", `ledger to read: a JSONL file, "-" for stdin, or "daemon"`)
	compare := a.verb(&cobra.Command{Use: "compare OLD NEW", Short: `Set two ledgers (JSONL files, "-", or "daemon") side by side and judge the cut-over`, Args: cobra.ExactArgs(2)},
		func(cmd *cobra.Command, c *api.Client, args []string) (any, string, error) {
			var ls [2][]ob.Entry
			for i, src := range args {
				var err error
				if ls[i], err = readLedger(cmd, c, src); err != nil {
					return nil, "", err
				}
			}
			slos, err := a.slos(cmd)
			cmp := ob.Compare(ob.ComputeReport(ls[0], slos), ob.ComputeReport(ls[1], slos))
			missing := ob.Parity(ls[0], ls[1])
			text := cmp.String() + fmt.Sprintf("source parity: %d obligation(s) of the old ledger missing from the new\n", len(missing))
			for _, m := range missing {
				text += "  - " + m + "\n"
			}
			return map[string]any{"comparison": cmp, "missing": missing}, text, err
		})
	export := a.verb(&cobra.Command{Use: "export", Short: "Write the daemon's ledger as JSONL to stdout", Args: cobra.NoArgs},
		func(cmd *cobra.Command, c *api.Client, _ []string) (any, string, error) {
			entries, err := c.LedgerAll(cmd.Context())
			if err == nil {
				err = ob.EncodeJSONL(cmd.OutOrStdout(), entries)
			}
			return nil, "", err
		})
	return group("ledger", "Report, compare and export the obligations ledger", report, compare, export)
}

func (a *app) canaryCmd() *cobra.Command {
	var lane, class string
	var count int
	var check bool
	cmd := a.verb(&cobra.Command{
		Use:   "canary (--lane L [--class C] [--count N] | --check)",
		Short: "Post synthetic obligations, or count the ones not consumed within their SLO",
		Long: `--lane posts --count canaries its consumer acks like any other obligation;
--check counts those not consumed within their class SLO (exit 1 if any).`,
		Args: cobra.NoArgs,
	}, func(cmd *cobra.Command, c *api.Client, _ []string) (any, string, error) {
		if check {
			entries, err := c.LedgerAll(cmd.Context())
			if err != nil {
				return nil, "", err
			}
			slos, err := a.slos(cmd)
			r := wakes.CheckCanaries(entries, slos, time.Now())
			if err == nil && r.FalseNegatives > 0 {
				err = exitError{code: 1, err: fmt.Errorf("%d canary false negative(s): %s", r.FalseNegatives, strings.Join(r.Failed, ", "))}
			}
			return r, fmt.Sprintf("canaries: %d posted, %d consumed in time, %d late, %d missing, %d pending\n",
				r.Posted, r.InTime, r.Late, r.Missing, r.Pending), err
		}
		if lane == "" {
			return nil, "", exitError{code: 2, err: errors.New("canary: give --lane to post, or --check")}
		}
		var posted []api.PostResult
		var text strings.Builder
		now := time.Now()
		for i := 1; i <= count; i++ {
			o := wakes.Canary(lane, ob.Class(class), now, i)
			res, err := c.Post(cmd.Context(), api.PostRequest{Lane: o.Lane, Class: class, ID: o.ID, Body: o.Body,
				Locator: o.Locator, Key: o.Key, Canary: true})
			if err != nil {
				return nil, "", err
			}
			posted = append(posted, res)
			fmt.Fprintf(&text, "canary %s#%d id=%s\n", lane, res.Obligation.Seq, o.ID)
		}
		return posted, text.String(), nil
	})
	f := cmd.Flags()
	f.StringVar(&lane, "lane", "", "lane to post canaries to")
	f.StringVar(&class, "class", string(ob.ClassHuman), "class of the canaries")
	f.IntVar(&count, "count", 1, "how many canaries")
	f.BoolVar(&check, "check", false, "count canaries not consumed within their SLO")
	return cmd
}

func (a *app) monitorCmd() *cobra.Command {
	var o liveness.MonitorOptions
	var listen, storeDir, keysFile string
	var expect []string
	var watchFleet bool
	var alertLane string
	cmd := &cobra.Command{
		Use:   "monitor --listen ADDR --period D --grace D (--keys FILE | --unauthenticated) [--alarm-cmd CMD] [--webhook URL] [--fleet]",
		Short: "Receive beacons on /ping/<host>; alarm when a host is silent for period + grace",
		Long: `Run it off-host; daemons send to beacon.url = http://ADDR/ping/<host>. Each
beacon extends absent/<host>; when it fires the monitor logs, runs --alarm-cmd
(env WAKEWHEEL_ALARM_HOST, _REASON, _MESSAGE, _LAST_SEEN, _AT) and POSTs the
alarm as JSON to --webhook. A fail beacon alarms at once.

Pings must be signed: --keys FILE holds one "host key" line per host (mode
0600; each daemon holds its key in beacon.key_file). A ping for a host without
a key, unsigned, wrongly signed, replayed or stamped too far from the
monitor's clock (monitor.max_skew) is refused and records nothing.
--unauthenticated takes unsigned pings from anyone who reaches the port.
Alarms are coalesced per host (monitor.alarm_interval) and rate-limited
(monitor.alarm_rate); at most monitor.max_hosts hosts are kept.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, _, err := a.config(cmd)
			if err != nil {
				return err
			}
			o.Logger = newLogger(cfg.Log, os.Stderr).With().Str("component", "monitor").Logger()
			if alertLane != "" && !watchFleet {
				return exitError{code: 2, err: errors.New("monitor --alert-lane posts through the fleet: add --fleet (and set fleet.url)")}
			}
			o.MaxHosts, o.AlarmInterval, o.AlarmRate, o.MaxSkew = cfg.Monitor.MaxHosts, cfg.Monitor.AlarmInterval, cfg.Monitor.AlarmRate, cfg.Monitor.MaxSkew
			o.SinkQueue = cfg.Monitor.SinkQueue
			switch {
			case keysFile != "" && o.AllowUnauthenticated:
				return exitError{code: 2, err: errors.New("--keys and --unauthenticated exclude each other")}
			case keysFile != "":
				if o.Keys, err = readMonitorKeys(keysFile); err != nil {
					return exitError{code: 2, err: err}
				}
			case !o.AllowUnauthenticated && !watchFleet:
				return exitError{code: 2, err: errors.New("give --keys FILE (one \"host key\" line per host; each daemon signs with beacon.key_file), or --unauthenticated to take unsigned pings from anyone who reaches the port")}
			}
			if watchFleet {
				closeFleet, err := fleetFeed(cfg, &o, alertLane)
				if err != nil {
					return err
				}
				defer closeFleet()
			}
			var st *store.DB
			if storeDir != "" {
				st, err = store.Open(storeDir, store.Options{})
			} else {
				st, err = store.OpenStorage(storage.NewMemStorage(), store.Options{})
			}
			if err != nil {
				return err
			}
			defer st.Close()
			ln, err := net.Listen("tcp", listen)
			if err != nil {
				return err
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), syscall.SIGTERM, syscall.SIGINT)
			defer stop()
			return liveness.ServeMonitor(ctx, ln, st, clock.Real{}, o, expect)
		},
	}
	f := cmd.Flags()
	f.StringVar(&listen, "listen", "127.0.0.1:9797", "address to receive beacons on")
	f.DurationVar(&o.Period, "period", time.Minute, "expected time between beacons")
	f.DurationVar(&o.Grace, "grace", time.Minute, "extra silence tolerated before the alarm")
	f.StringVar(&o.AlarmCmd, "alarm-cmd", "", "command run with /bin/sh -c on every alarm")
	f.StringVar(&o.Webhook, "webhook", "", "URL that receives every alarm as a JSON POST")
	f.StringSliceVar(&expect, "expect", nil, "hosts that alarm even if they never beacon")
	f.StringVar(&storeDir, "store", "", "keep absence windows in this directory (default: in memory)")
	f.StringVar(&alertLane, "alert-lane", "", "with --fleet: also post every alarm as an alert obligation into this lane, wherever it is homed")
	f.StringVar(&keysFile, "keys", "", "file of \"host key\" lines: only pings signed with their host's key are taken")
	f.BoolVar(&o.AllowUnauthenticated, "unauthenticated", false, "take unsigned pings from anyone who reaches the port")
	f.BoolVar(&watchFleet, "fleet", false, "also take beacons from the fleet's bucket (fleet.url); alarm monitor_blind when the broker is unreachable")
	return cmd
}
