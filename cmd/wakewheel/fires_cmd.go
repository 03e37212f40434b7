package main

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/wakewheel/wakewheel"
	"github.com/wakewheel/wakewheel/api"
)

// firesCmd lists the newest fires: deadlines that fell due and whose
// action finished, with the outcome. A reminder's fire shows here.
func (a *app) firesCmd() *cobra.Command {
	var limit int
	var prefix string
	cmd := a.verb(&cobra.Command{
		Use:   "fires [--limit N] [--key PREFIX]",
		Short: "List the newest fires (deadlines that fell due and ran), oldest first",
		Long: `List the newest fires, oldest first: each deadline that fell due and whose
action finished, when it was due, when it fired, and its outcome (done, retry,
yield, conflict, failure). A reminder's fire is the key reminder/NAME.
--key keeps the fires whose key starts with PREFIX, among the newest --limit.`,
		Args: cobra.NoArgs,
	}, func(cmd *cobra.Command, c *api.Client, _ []string) (any, string, error) {
		if limit < 1 {
			return nil, "", exitError{code: 2, err: fmt.Errorf("--limit %d: want at least 1", limit)}
		}
		fires, err := c.LastFires(cmd.Context(), limit)
		if err != nil {
			return nil, "", err
		}
		kept := []wakewheel.Fire{}
		for _, f := range fires {
			if strings.HasPrefix(f.Key, prefix) {
				kept = append(kept, f)
			}
		}
		if len(kept) == 0 {
			return kept, "no fires\n", nil
		}
		return kept, table(func(w io.Writer) {
			fmt.Fprintln(w, "FIRED\tKEY\tOUTCOME\tLATE")
			for _, f := range kept {
				fmt.Fprintf(w, "%s\t%s\t%s\t%s\n", f.Fired.Local().Format(time.DateTime), f.Key, f.Outcome, late(f))
			}
		}), nil
	})
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
