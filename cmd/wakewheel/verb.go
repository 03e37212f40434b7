package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"
	"github.com/wakewheel/wakewheel/api"
)

// Exit statuses of every verb: 0 done; 1 failure (no daemon, an internal
// error, a check that found a problem); 2 rejected (the daemon refused the
// request: bad input, an unknown lane or root, a lease held by someone
// else; api.ExitCode reads the API's error table); 3 corrupt store (the
// daemon, at start); 75 the daemon is stopping or still loading its
// deadlines (EX_TEMPFAIL: call again once it is back; the client itself
// waits up to api.LoadingWait for a load); 124 wait timed out (as timeout(1)), for shell loops.
// A command line the verb cannot take exits 2 with its usage line.
const exitWaitTimeout = 124

// verbFunc is a verb's own work: it returns the value to print (nil: print
// nothing), its text form, and the error to exit with. The value is printed
// with no error, or with an exitError (a verdict such as doctor's); any
// other error is printed alone. c is nil for a local verb.
type verbFunc func(cmd *cobra.Command, c *api.Client, args []string) (any, string, error)

// verb completes cmd as a verb that talks to the daemon: a --json flag,
// the client, printing what run returns (as JSON with --json, its text
// otherwise) to the command's own output, and the exit status of the API's
// error table.
func (a *app) verb(cmd *cobra.Command, run verbFunc) *cobra.Command {
	return a.newVerb(cmd, true, run)
}

// localVerb is verb for a verb that does not talk to the daemon (or finds
// the daemon itself): run gets no client.
func (a *app) localVerb(cmd *cobra.Command, run func(cmd *cobra.Command, args []string) (any, string, error)) *cobra.Command {
	return a.newVerb(cmd, false, func(cmd *cobra.Command, _ *api.Client, args []string) (any, string, error) {
		return run(cmd, args)
	})
}

// newVerb is the one constructor of the CLI's verbs.
func (a *app) newVerb(cmd *cobra.Command, needsClient bool, run verbFunc) *cobra.Command {
	var asJSON bool
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		var c *api.Client
		if needsClient {
			var err error
			if c, err = a.client(cmd); err != nil {
				return err
			}
		}
		v, text, err := run(cmd, c, args)
		var ee exitError
		if err != nil && !errors.As(err, &ee) {
			// A failed call has no answer to print: only a verb's own
			// verdict (an exitError) comes with one.
			return exitError{code: api.ExitCode(err), err: err}
		}
		if v == nil {
			return err
		}
		out := cmd.OutOrStdout()
		if asJSON {
			return errors.Join(printJSON(out, v), err)
		}
		_, werr := io.WriteString(out, text)
		return errors.Join(werr, err)
	}
	return cmd
}

// group is a verb made only of sub-verbs (config, fleet, ledger): without
// one it prints its help.
func group(use, short string, subs ...*cobra.Command) *cobra.Command {
	cmd := &cobra.Command{Use: use, Short: short}
	cmd.AddCommand(subs...)
	return cmd
}

// requiredString declares the string flag --name, kept in p, that a verb
// cannot run without: cobra refuses a command line that lacks it, and its
// usage says "(required)".
func requiredString(cmd *cobra.Command, p *string, name, usage string) {
	cmd.Flags().StringVar(p, name, "", usage+" (required)")
	_ = cmd.MarkFlagRequired(name)
}

// client returns an API client for the configured socket. A client needs
// the socket's path, not a valid config: with a problem elsewhere in the
// config (a typo the running daemon rejected, say) it warns on the
// command's error output and carries on.
func (a *app) client(cmd *cobra.Command) (*api.Client, error) {
	socket, problem, err := a.socketPath(cmd)
	if err != nil {
		return nil, err
	}
	if problem != nil {
		fmt.Fprintf(cmd.ErrOrStderr(), "wakewheel: warning: the config has a problem (a running daemon keeps its previous config):\n%s\n",
			api.Plain(problem.Error()))
	}
	return api.NewClient(socket), nil
}

// socketPath is the configured socket, and the config's problem when it
// does not validate; err when even the socket's path does not resolve.
func (a *app) socketPath(cmd *cobra.Command) (socket string, problem, err error) {
	cfg, eff, err := a.config(cmd)
	if err == nil {
		return cfg.Engine.SocketPath, nil, nil
	}
	en, ok := eff.Lookup("engine.socket_path")
	if !ok || en.Value == "" || strings.Contains(err.Error(), "engine.socket_path") {
		return "", nil, err
	}
	return en.Value, err, nil
}

// exitError carries a specific exit status.
type exitError struct {
	code int
	err  error
}

func (e exitError) Error() string { return e.err.Error() }
func (e exitError) Unwrap() error { return e.err }

// execute runs the command line and returns the process's exit status; an
// error is printed to the command's own error output. A command line the
// verb cannot take (a missing argument, an unknown or malformed flag) is
// exit status 2 and shows the verb's usage line.
func execute(root *cobra.Command) int {
	markRuns(root)
	cmd, err := root.ExecuteC()
	if err == nil {
		return 0
	}
	msg := api.Plain(err.Error())
	var ran ranError
	if !errors.As(err, &ran) && cmd != nil {
		fmt.Fprintf(root.ErrOrStderr(), "wakewheel: %s\nusage: %s\n(see `%s --help`)\n", msg, cmd.UseLine(), cmd.CommandPath())
		return exitUsage
	}
	fmt.Fprintln(root.ErrOrStderr(), "wakewheel:", msg)
	var ee exitError
	if errors.As(err, &ee) {
		return ee.code
	}
	return 1
}

// exitUsage is the exit status of a command line the verb cannot take.
const exitUsage = 2

// ranError marks an error a verb's own run returned; any other error of
// Execute is about the command line.
type ranError struct{ err error }

func (e ranError) Error() string { return e.err.Error() }
func (e ranError) Unwrap() error { return e.err }

// markRuns wraps the run of every command so its errors are told apart
// from the command line's.
func markRuns(c *cobra.Command) {
	if run := c.RunE; run != nil {
		c.RunE = func(cmd *cobra.Command, args []string) error {
			if err := run(cmd, args); err != nil {
				return ranError{err}
			}
			return nil
		}
	}
	c.SetFlagErrorFunc(flagError)
	for _, sub := range c.Commands() {
		markRuns(sub)
	}
}

// flagError says what a malformed flag value should look like, instead of
// the parser's words (strconv.ParseUint: parsing "-1": invalid syntax).
func flagError(cmd *cobra.Command, err error) error {
	msg := err.Error()
	const pre = "invalid argument "
	if !strings.HasPrefix(msg, pre) {
		return err
	}
	// invalid argument "V" for "--name" flag: detail
	rest := strings.TrimPrefix(msg, pre)
	value, rest, ok1 := strings.Cut(rest, " for ")
	flag, _, ok2 := strings.Cut(rest, " flag: ")
	if !ok1 || !ok2 {
		return err
	}
	name := strings.TrimLeft(strings.Trim(flag, `"`), "-")
	if i := strings.Index(name, ", --"); i >= 0 { // "-x, --name"
		name = name[i+4:]
	}
	want := "a valid value"
	if f := cmd.Flags().Lookup(name); f != nil {
		switch f.Value.Type() {
		case "uint", "uint64", "uint32":
			want = "a whole number, 0 or more"
		case "int", "int64", "int32":
			want = "a whole number"
		case "duration":
			want = "a duration like 90s, 5m or 1h30m"
		case "bool":
			want = "true or false"
		case "float64":
			want = "a number"
		default:
			return err // the flag's own parser said what was wrong
		}
	}
	return fmt.Errorf("--%s %s: want %s", name, value, want)
}

func printJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// table renders rows as aligned columns, the way every verb's text looks.
func table(fill func(w io.Writer)) string {
	var b strings.Builder
	w := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
	fill(w)
	w.Flush()
	return b.String()
}
