package main

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"
)

// manCmd writes a man page per verb (cobra's generator): `make install`
// puts them in $(PREFIX)/share/man/man1.
func (a *app) manCmd() *cobra.Command {
	return a.localVerb(&cobra.Command{
		Use:    "man DIR",
		Short:  "Write the man pages of every verb into DIR (make install does)",
		Hidden: true,
		Args:   cobra.ExactArgs(1),
	}, func(cmd *cobra.Command, args []string) (any, string, error) {
		dir := args[0]
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, "", err
		}
		hdr := &doc.GenManHeader{Title: "WAKEWHEEL", Section: "1", Source: "wakewheel " + version, Manual: "wakewheel manual"}
		if err := doc.GenManTree(a.root, hdr, dir); err != nil {
			return nil, "", fmt.Errorf("man pages: %w", err)
		}
		return map[string]string{"dir": dir}, fmt.Sprintf("man pages written to %s\n", dir), nil
	})
}
