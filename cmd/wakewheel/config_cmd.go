package main

import (
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/spf13/cobra"
	"github.com/wakewheel/wakewheel/api"
)

func (a *app) configCmd() *cobra.Command {
	return group("config", "Inspect the configuration", a.configShowCmd())
}

func (a *app) configShowCmd() *cobra.Command {
	var fromDaemon bool
	cmd := a.localVerb(&cobra.Command{
		Use:   "show",
		Short: "Print every setting's effective value and where it came from",
		Long: `Print every registered setting with its effective value and its source:
"flag --KEY", "env WAKEWHEEL_KEY", "file PATH" or "default". Layers, highest
first: flags, WAKEWHEEL_* environment, the config file, the defaults.

By default the configuration is resolved here, as the next daemon started
from this shell would see it; an invalid value is printed with the others
and the command then fails with every problem. With --daemon it prints the
configuration in force in the running daemon instead, with the state of
its live reload (the file it watches, and the last rejected change).

configs/REFERENCE.md lists each setting's range and the reason for its
default.`,
		Args: cobra.NoArgs,
	}, func(cmd *cobra.Command, _ []string) (any, string, error) {
		if fromDaemon {
			return a.daemonConfig(cmd)
		}
		_, eff, err := a.config(cmd)
		out := struct {
			Entries []ConfigEntry `json:"entries"`
			Error   string        `json:"error,omitempty"`
		}{Entries: []ConfigEntry{}}
		if eff != nil {
			out.Entries = entriesOf(eff)
		}
		if err != nil {
			// printed with the others, then the command fails
			out.Error = err.Error()
			err = exitError{code: api.ExitFailure, err: err}
		}
		return out, entriesText(out.Entries), err
	})
	cmd.Flags().BoolVar(&fromDaemon, "daemon", false, "show the configuration in force in the running daemon")
	return cmd
}

// daemonConfig is the config in force in the daemon, and its reload state.
func (a *app) daemonConfig(cmd *cobra.Command) (any, string, error) {
	c, err := a.client(cmd)
	if err != nil {
		return nil, "", err
	}
	var view ConfigView
	if err := c.Do(cmd.Context(), http.MethodGet, "/v1/config", nil, &view); err != nil {
		return nil, "", err
	}
	var b strings.Builder
	b.WriteString(entriesText(view.Entries))
	st := view.Reload
	switch {
	case st.Off != "":
		fmt.Fprintf(&b, "\nlive reload is off: %s\n", api.Plain(st.Off))
	default:
		fmt.Fprintf(&b, "\nlive reload watches %s (%d changes applied)\n", st.File, st.Reloads)
	}
	if st.LastError != "" {
		fmt.Fprintf(&b, "last change rejected at %s; the previous config stays in force:\n%s\n",
			st.LastErrorAt.Local().Format("2006-01-02 15:04:05"), api.Plain(st.LastError))
	}
	return view, b.String(), nil
}

func entriesText(entries []ConfigEntry) string {
	return table(func(w io.Writer) {
		fmt.Fprintln(w, "KEY\tVALUE\tSOURCE")
		for _, en := range entries {
			value := en.Value
			if value == "" {
				value = `""`
			}
			fmt.Fprintf(w, "%s\t%s\t%s\n", en.Key, value, en.Source)
		}
	})
}
