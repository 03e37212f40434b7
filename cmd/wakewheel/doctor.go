package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/wakewheel/wakewheel/configs"
)

// finding is one check's verdict, and the fix when it is not ok.
type finding struct {
	Check  string `json:"check"`
	Level  level  `json:"level"`
	Detail string `json:"detail"`
	Fix    string `json:"fix,omitempty"`
}

// level is a finding's verdict. A problem makes `wakewheel doctor` exit 1.
type level string

// The levels of a finding.
const (
	levelOK      level = "ok"
	levelWarn    level = "warn"
	levelProblem level = "PROBLEM"
	levelSkipped level = "skipped"
)

// doctorEnv is what the checks read from the machine, replaceable in tests.
type doctorEnv struct {
	inotifyDir string // /proc/sys/fs/inotify
	lookPath   func(string) (string, error)
}

var realDoctorEnv = doctorEnv{inotifyDir: "/proc/sys/fs/inotify", lookPath: exec.LookPath}

func (a *app) doctorCmd() *cobra.Command {
	return a.localVerb(&cobra.Command{
		Use:   "doctor",
		Short: "Check the host for what wakewheel needs, and print the fix for each problem",
		Long: `Check the configuration, the inotify limits, git, the daemon's socket and
its store, and print the fix for each problem. It exits 1 when a check finds
a problem (warnings alone exit 0). The store is read through the running
daemon when one answers, and opened directly otherwise.`,
		Args: cobra.NoArgs,
	}, func(cmd *cobra.Command, _ []string) (any, string, error) {
		findings := a.doctor(cmd, realDoctorEnv)
		for _, f := range findings {
			if f.Level == levelProblem {
				return findings, findingsText(findings), exitError{code: 1, err: errors.New("doctor found problems; each is printed with its fix")}
			}
		}
		return findings, findingsText(findings), nil
	})
}

func (a *app) doctor(cmd *cobra.Command, env doctorEnv) []finding {
	cfg, eff, err := a.config(cmd)
	out := []finding{checkConfig(eff, err)}
	if err != nil {
		// Carry on with what resolved: the socket and the store still matter.
		cfg = configs.Config{Detect: configs.Detect{WatchBudget: 8192}}
		if en, ok := eff.Lookup("engine.socket_path"); ok {
			cfg.Engine.SocketPath = en.Value
		}
		if en, ok := eff.Lookup("engine.store_dir"); ok {
			cfg.Engine.StoreDir = en.Value
		}
	}
	out = append(out, checkInotify(env.inotifyDir, cfg.Detect.WatchBudget))
	out = append(out, checkGit(env.lookPath))
	sock, status := checkSocket(cmd.Context(), cfg.Engine.SocketPath)
	out = append(out, sock, checkStore(cfg.Engine.StoreDir, status))
	return out
}

func checkConfig(eff *configs.Effective, err error) finding {
	f := finding{Check: "config", Level: levelOK, Detail: "defaults (no config file)"}
	if err != nil {
		f.Level, f.Detail = levelProblem, err.Error()
		f.Fix = "correct the value named above; `wakewheel config show` lists every value and its source"
		return f
	}
	if path := eff.File(); path != "" {
		f.Detail = "valid: " + path
	}
	return f
}

// Inotify thresholds: one watch per watched directory (the watch budget is
// the daemon's own cap), one instance per armed root plus one for the
// config file.
const minInotifyInstances = 64

func checkInotify(dir string, budget int) finding {
	f := finding{Check: "inotify", Level: levelOK}
	if runtime.GOOS != "linux" {
		f.Level, f.Detail = levelSkipped, "not Linux: the file watcher uses the platform's own notification API"
		return f
	}
	watches, err1 := readProcInt(filepath.Join(dir, "max_user_watches"))
	instances, err2 := readProcInt(filepath.Join(dir, "max_user_instances"))
	if err := errors.Join(err1, err2); err != nil {
		f.Level, f.Detail = levelWarn, "cannot read the inotify limits: "+err.Error()
		f.Fix = "roots will be watched as far as the kernel allows, then polled"
		return f
	}
	f.Detail = fmt.Sprintf("max_user_watches %d (watch budget %d), max_user_instances %d", watches, budget, instances)
	var fixes []string
	if watches < budget {
		f.Level = levelProblem
		fixes = append(fixes, fmt.Sprintf("raise the watch limit above the budget: sudo sysctl fs.inotify.max_user_watches=%d, "+
			"and keep it with a line fs.inotify.max_user_watches=%d in /etc/sysctl.d/60-wakewheel.conf; "+
			"or lower detect.watch_budget to %d", max(524288, budget), max(524288, budget), watches))
	}
	if instances < minInotifyInstances {
		if f.Level == levelOK {
			f.Level = levelWarn
		}
		fixes = append(fixes, fmt.Sprintf("each armed root takes an inotify instance: sudo sysctl fs.inotify.max_user_instances=1024 "+
			"(and fs.inotify.max_user_instances=1024 in /etc/sysctl.d/60-wakewheel.conf); below %d, roots beyond the limit are polled", minInotifyInstances))
	}
	f.Fix = strings.Join(fixes, "; ")
	return f
}

func readProcInt(path string) (int, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	return strconv.Atoi(strings.TrimSpace(string(b)))
}

// minGit is the oldest git with `status --porcelain=v2`, which the changed
// set needs.
var minGit = [2]int{2, 11}

var gitVersion = regexp.MustCompile(`git version (\d+)\.(\d+)`)

func checkGit(lookPath func(string) (string, error)) finding {
	f := finding{Check: "git", Level: levelOK}
	path, err := lookPath("git")
	if err != nil {
		f.Level, f.Detail = levelProblem, "git is not on PATH: git roots cannot compute their changed sets"
		f.Fix = fmt.Sprintf("install git %d.%d or later (apt install git, dnf install git, brew install git) and make sure the daemon's PATH finds it", minGit[0], minGit[1])
		return f
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, path, "--version").Output()
	m := gitVersion.FindStringSubmatch(string(out))
	if err != nil || m == nil {
		f.Level, f.Detail = levelProblem, fmt.Sprintf("%s --version did not answer a version (%v)", path, err)
		f.Fix = "reinstall git"
		return f
	}
	major, _ := strconv.Atoi(m[1])
	minor, _ := strconv.Atoi(m[2])
	f.Detail = fmt.Sprintf("%s (%s)", strings.TrimSpace(string(out)), path)
	if major < minGit[0] || major == minGit[0] && minor < minGit[1] {
		f.Level = levelProblem
		f.Fix = fmt.Sprintf("upgrade git to %d.%d or later: the changed set uses status --porcelain=v2", minGit[0], minGit[1])
	}
	return f
}

func findingsText(findings []finding) string {
	return table(func(w io.Writer) {
		for _, f := range findings {
			fmt.Fprintf(w, "%s\t%s\t%s\n", f.Level, f.Check, f.Detail)
			if f.Fix != "" {
				fmt.Fprintf(w, "\t\tfix: %s\n", f.Fix)
			}
		}
	})
}
