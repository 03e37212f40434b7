package main

import (
	"context"
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/wakewheel/wakewheel/api"
)

// agentDelivery renders how each lane's agent is reached (its hook
// session, runner and pane) for `lanes`; "" when no lane has any.
func agentDelivery(ctx context.Context, c *api.Client) string {
	st, err := c.Agents(ctx)
	if err != nil || len(st) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("\n")
	w := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "LANE\tSESSION\tRUNNER\tPANE")
	for _, l := range st {
		sess, runner, pane := "-", "-", "-"
		if s := l.Session; s != nil {
			sess = fmt.Sprintf("%s %s %s", s.Host, shortID(s.ID), s.State)
			if !s.Until.IsZero() && time.Now().After(s.Until) {
				sess += " (stale)"
			}
		}
		if r := l.Runner; r != nil {
			runner = fmt.Sprintf("%d runs", r.Runs)
			if r.Running {
				runner += ", running"
			}
			if r.Failures > 0 {
				runner += fmt.Sprintf(", %d failed in a row: %s", r.Failures, r.LastErr)
			}
		}
		if p := l.Pane; p != nil {
			pane = fmt.Sprintf("%s: %d prompts", p.Target, p.Prompts)
			if p.Missing {
				pane = p.Target + ": MISSING (" + p.LastErr + ")"
			}
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\n", l.Lane, sess, runner, pane)
	}
	w.Flush()
	return b.String()
}

func shortID(id string) string {
	if len(id) > 12 {
		return id[:12]
	}
	return id
}
