package main

import (
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
	"github.com/wakewheel/wakewheel"
)

// firesCmd lists the newest fires: deadlines that fell due and whose
// action finished, with the outcome. A reminder's fire shows here.
func (a *app) firesCmd() *cobra.Command {
	var asJSON bool
	var limit int
	var prefix string
	cmd := &cobra.Command{
		Use:   "fires [--limit N] [--key PREFIX]",
		Short: "List the newest fires (deadlines that fell due and ran), oldest first",
		Long: `List the newest fires, oldest first: each deadline that fell due and whose
action finished, when it was due, when it fired, and its outcome (done, retry,
yield, conflict, failure). A reminder's fire is the key reminder/NAME.
--key keeps the fires whose key starts with PREFIX, among the newest --limit.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if limit < 1 {
				return exitError{code: 2, err: fmt.Errorf("--limit %d: want at least 1", limit)}
			}
			c, err := a.client(cmd)
			if err != nil {
				return err
			}
			fires, err := c.LastFires(cmd.Context(), limit)
			if err != nil {
				return err
			}
			kept := []wakewheel.Fire{}
			for _, f := range fires {
				if strings.HasPrefix(f.Key, prefix) {
					kept = append(kept, f)
				}
			}
			if asJSON {
				return printJSON(cmd.OutOrStdout(), kept)
			}
			if len(kept) == 0 {
				fmt.Fprintln(cmd.OutOrStdout(), "no fires")
				return nil
			}
			w := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
			fmt.Fprintln(w, "FIRED\tKEY\tOUTCOME\tLATE")
			for _, f := range kept {
				fmt.Fprintf(w, "%s\t%s\t%s\t%s\n", f.Fired.Local().Format(time.DateTime), f.Key, f.Outcome, late(f))
			}
			return w.Flush()
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	cmd.Flags().IntVar(&limit, "limit", 20, "how many of the newest fires")
	cmd.Flags().StringVar(&prefix, "key", "", "only keys starting with this prefix, e.g. reminder/")
	return cmd
}

// late is how long after its due time a deadline fired, rounded for
// reading.
func late(f wakewheel.Fire) string {
	d := f.Fired.Sub(f.At)
	switch {
	case d < time.Millisecond:
		return "on time"
	case d < time.Second:
		return d.Round(time.Millisecond).String()
	}
	return d.Round(time.Second).String()
}
