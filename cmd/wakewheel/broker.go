package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"

	"github.com/spf13/cobra"
)

// brokerProgram is the broker's own program. The daemon's binary never
// links nats-server (its package init wakes a process every second), so
// a broker node runs as this program: `wakewheel broker` becomes it, and
// fleet.embed runs it as a child.
const brokerProgram = "wakewheel-broker"

// brokerCmd runs one node of the fleet's broker: an embedded nats-server
// with JetStream and SyncAlways, in its own process (the broker program,
// which takes the verb's place).
func (a *app) brokerCmd() *cobra.Command {
	var name, listen, cluster, routes, store, natsConfig string
	cmd := &cobra.Command{
		Use:   "broker",
		Short: "Run a node of the fleet's broker (NATS with JetStream, every write synced)",
		Long: `Run one node of the fleet's broker in the foreground until SIGTERM or SIGINT:
an embedded nats-server with JetStream, fsyncing every message before it
is acknowledged. Run one per host of a small fleet, three or more for a
replicated (R3) stream; or point fleet.url at a NATS cluster you already run.

  wakewheel broker --name a --listen 127.0.0.1:4222 --store /var/lib/wakewheel-broker \
      --cluster 127.0.0.1:6222 --routes nats://127.0.0.1:6223,nats://127.0.0.1:6224

A node listening beyond loopback needs TLS and authorization, given in a
nats-server config file (--nats-config).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, _, err := a.config(cmd)
			if err != nil {
				return err
			}
			prog, err := findBroker()
			if err != nil {
				return err
			}
			argv := []string{prog, "--name", name, "--listen", listen, "--store", store,
				"--log-level", cfg.Log.Level, "--log-format", logFormat(cfg.Log, os.Stderr)}
			for _, fv := range [][2]string{{"--cluster", cluster}, {"--routes", routes}, {"--nats-config", natsConfig}} {
				if fv[1] != "" {
					argv = append(argv, fv[0], fv[1])
				}
			}
			// The node takes this process's place: its pid, its signals,
			// its exit status and its errors are the verb's.
			err = syscall.Exec(prog, argv, os.Environ())
			return fmt.Errorf("could not run the broker program %s: %w", prog, err)
		},
	}
	requiredString(cmd, &name, "name", "this node's name, unique in the cluster")
	requiredString(cmd, &store, "store", "directory of the JetStream files")
	f := cmd.Flags()
	f.StringVar(&listen, "listen", "127.0.0.1:4222", "client host:port")
	f.StringVar(&cluster, "cluster", "", "this node's cluster host:port (empty: a single node)")
	f.StringVar(&routes, "routes", "", "the other nodes' cluster URLs, comma-separated (nats://host:port,...)")
	f.StringVar(&natsConfig, "nats-config", "", "a nats-server config file for TLS, accounts and authorization")
	return cmd
}

// findBroker finds the broker program: beside this wakewheel first (an
// install puts both in one directory), then on PATH.
func findBroker() (string, error) {
	self, err := os.Executable()
	if err != nil {
		self = ""
	}
	return lookBroker(self)
}

// lookBroker finds the broker program beside the executable self ("":
// unknown), then on PATH.
func lookBroker(self string) (string, error) {
	beside := "the directory of this wakewheel, which could not be found"
	if self != "" {
		beside = filepath.Join(filepath.Dir(self), brokerProgram)
		if st, err := os.Stat(beside); err == nil && st.Mode().IsRegular() && st.Mode()&0o111 != 0 {
			return beside, nil
		}
	}
	if p, err := exec.LookPath(brokerProgram); err == nil {
		return p, nil
	}
	return "", fmt.Errorf("the broker is a program of its own, %s, and it is neither beside this wakewheel (%s) nor on PATH: "+
		"install it beside wakewheel with `make install` (it installs both), or `go install github.com/wakewheel/wakewheel/cmd/%s`",
		brokerProgram, beside, brokerProgram)
}
