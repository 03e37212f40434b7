package main

import (
	"os"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/wakewheel/wakewheel/configs"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "dev"

func main() {
	if code := execute(newRoot()); code != 0 {
		os.Exit(code)
	}
}

// app is what every subcommand shares: the flags that locate the config.
type app struct {
	configFile string
	root       *cobra.Command
}

func newRoot() *cobra.Command {
	a := &app{}
	root := &cobra.Command{
		Use:           "wakewheel",
		Short:         "A cron-free scheduler engine for developer hosts and their coding agents",
		Version:       version,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	a.root = root
	root.PersistentFlags().StringVar(&a.configFile, "config", "", "config file (default: $XDG_CONFIG_HOME/wakewheel/config.yaml when it exists)")
	// Every setting is a flag of every verb (--detect.burst_silence=1s),
	// hidden from the verbs' help: `wakewheel help settings` lists them,
	// and `wakewheel daemon --help` shows them where they matter.
	configs.AddFlags(root.PersistentFlags())
	root.PersistentFlags().VisitAll(func(f *pflag.Flag) {
		if f.Name != "config" {
			f.Hidden = true
		}
	})
	root.AddCommand(settingsTopic(),
		a.daemonCmd(),
		a.brokerCmd(),
		a.fleetCmd(),
		a.statusCmd(),
		a.deadlinesCmd(),
		a.remindCmd(),
		a.alertsCmd(),
		a.firesCmd(),
		a.repairCmd(), a.backupCmd(), a.restoreCmd(),
		a.obligationsCmds(),
		a.mcpCmd(),
		a.configCmd(),
		a.doctorCmd(),
		a.watchCmd(), a.unwatchCmd(), a.armCmd(), a.disarmCmd(), a.rootsCmd(), a.leaseCmd(),
		a.hookCmd(),
		a.manCmd(),
	)
	return root
}

// config loads the effective configuration: flag > env > file > default.
func (a *app) config(cmd *cobra.Command) (configs.Config, *configs.Effective, error) {
	return configs.Load(a.loadOptions(cmd))
}

// loadOptions are the layers of cmd's configuration: its flags, --config,
// the environment.
func (a *app) loadOptions(cmd *cobra.Command) configs.LoadOptions {
	return configs.LoadOptions{File: a.configFile, Flags: cmd.Flags()}
}
