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
// daemon, at start); 124 wait timed out (as timeout(1)), for shell loops.
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

// client returns an API client for the configured socket.
func (a *app) client(cmd *cobra.Command) (*api.Client, error) {
	cfg, _, err := a.config(cmd)
	if err != nil {
		return nil, err
	}
	return api.NewClient(cfg.Engine.SocketPath), nil
}

// exitError carries a specific exit status.
type exitError struct {
	code int
	err  error
}

func (e exitError) Error() string { return e.err.Error() }
func (e exitError) Unwrap() error { return e.err }

// execute runs the command line and returns the process's exit status; an
// error is printed to the command's own error output.
func execute(root *cobra.Command) int {
	err := root.Execute()
	if err == nil {
		return 0
	}
	fmt.Fprintln(root.ErrOrStderr(), "wakewheel:", err)
	var ee exitError
	if errors.As(err, &ee) {
		return ee.code
	}
	return 1
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
