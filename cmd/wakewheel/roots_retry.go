package main

import (
	"github.com/spf13/cobra"
	"github.com/wakewheel/wakewheel/api"
)

// rootsRetryCmd is `wakewheel roots retry PATH`: after an ingest's retries
// were spent (the alert retries_exhausted), the backlog keeps its paths;
// once the command is fixed this drains it at once. A change of the
// root's commands, a config reload or the root's next event do the same.
func (a *app) rootsRetryCmd() *cobra.Command {
	return a.pathVerb("retry PATH", "Drain a root's backlog again now (after its retries were spent) and look for changes",
		func(cmd *cobra.Command, c *api.Client, path string) (any, string, error) {
			return rootAnswer(c.RetryRoot(cmd.Context(), path))
		})
}
