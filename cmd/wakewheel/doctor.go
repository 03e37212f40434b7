package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"github.com/wakewheel/wakewheel/api"
	"github.com/wakewheel/wakewheel/configs"
	"github.com/wakewheel/wakewheel/deadlines"
	"github.com/wakewheel/wakewheel/store"
)

// Levels of a doctor finding. A problem makes `wakewheel doctor` exit 1.
const (
	levelOK      = "ok"
	levelWarn    = "warn"
	levelProblem = "PROBLEM"
	levelSkipped = "skipped"
)

// finding is one check's verdict, and the fix when it is not ok.
type finding struct {
	Check  string `json:"check"`
	Level  string `json:"level"`
	Detail string `json:"detail"`
	Fix    string `json:"fix,omitempty"`
}

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

// checkSocket inspects the socket file and asks the daemon for its status;
// status is nil when no daemon answers.
func checkSocket(ctx context.Context, path string) (finding, *api.Status) {
	f := finding{Check: "socket", Level: levelOK}
	start := "start the daemon: `wakewheel daemon`, or `systemctl --user enable --now wakewheel` with packaging/wakewheel.service"
	if path == "" {
		f.Level, f.Detail = levelSkipped, "the configuration did not resolve engine.socket_path"
		return f, nil
	}
	fi, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		f.Level, f.Detail, f.Fix = levelWarn, path+": no daemon is running", start
		return f, nil
	case err != nil:
		f.Level, f.Detail, f.Fix = levelProblem, err.Error(), "check the permissions of "+filepath.Dir(path)
		return f, nil
	case fi.Mode()&fs.ModeSocket == 0:
		f.Level, f.Detail = levelProblem, path+" exists and is not a socket"
		f.Fix = "move it away (rm " + path + ") or set engine.socket_path elsewhere"
		return f, nil
	}
	var problems, fixes []string
	if perm := fi.Mode().Perm(); perm != 0o600 {
		problems = append(problems, fmt.Sprintf("mode %04o, want 0600", perm))
		fixes = append(fixes, "restart the daemon (it creates the socket 0600), or chmod 600 "+path)
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) != os.Getuid() {
		problems = append(problems, fmt.Sprintf("owned by uid %d, not you (uid %d)", st.Uid, os.Getuid()))
		fixes = append(fixes, "each user runs their own daemon: set engine.socket_path to a path of your own")
	}
	if dir, err := os.Stat(filepath.Dir(path)); err == nil && dir.Mode().Perm()&0o077 != 0 {
		problems = append(problems, fmt.Sprintf("directory mode %04o, want 0700", dir.Mode().Perm()))
		fixes = append(fixes, "chmod 700 "+filepath.Dir(path))
	}
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	st, err := api.NewClient(path).Status(ctx)
	var status *api.Status
	if err != nil {
		problems = append(problems, "no daemon answers on it (a stale socket)")
		fixes = append(fixes, start+" (it replaces a stale socket)")
	} else {
		status = &st
	}
	f.Detail = path
	switch {
	case status != nil && status.State == api.StateLoading && status.Loading != nil:
		f.Detail += fmt.Sprintf(": the daemon answers (pid %d, %s), still loading its deadlines (%d%%)", status.PID, status.Version, status.Loading.Percent)
	case status != nil:
		f.Detail += fmt.Sprintf(": the daemon answers (pid %d, %s, %d pending)", status.PID, status.Version, status.Pending)
	}
	if len(problems) > 0 {
		f.Level, f.Detail, f.Fix = levelProblem, path+": "+strings.Join(problems, "; "), strings.Join(fixes, "; ")
	}
	return f, status
}

// checkStore asks the running daemon, or else opens the store itself.
func checkStore(dir string, status *api.Status) finding {
	f := finding{Check: "store", Level: levelOK}
	if dir == "" && status == nil {
		f.Level, f.Detail = levelSkipped, "the configuration did not resolve engine.store_dir"
		return f
	}
	if status != nil {
		f.Detail = fmt.Sprintf("%s: open in the daemon, %d deadlines pending, %d alerts since start", status.StoreDir, status.Pending, status.Alerts)
		if status.State == api.StateLoading && status.Loading != nil {
			f.Detail = fmt.Sprintf("%s: open in the daemon, loading its deadlines (%d%%, %d read)", status.StoreDir, status.Loading.Percent, status.Loading.Read)
		}
		if filepath.Clean(status.StoreDir) != filepath.Clean(dir) {
			f.Level = levelWarn
			f.Fix = "the daemon uses another store than this configuration names (" + dir + "): run doctor with the daemon's config"
		}
		return f
	}
	if _, err := os.Stat(filepath.Join(dir, "CURRENT")); errors.Is(err, fs.ErrNotExist) {
		f.Detail = dir + ": no store yet (the first `wakewheel daemon` creates it)"
		return f
	}
	db, err := store.Open(dir, store.Options{})
	if err != nil {
		f.Level, f.Detail = levelProblem, err.Error()
		switch {
		case errors.Is(err, store.ErrCorrupt):
			f.Fix = "stop any daemon, then run `wakewheel repair`"
		case errors.Is(err, store.ErrSchemaTooNew):
			f.Fix = "this store was written by a newer wakewheel: upgrade this binary"
		case strings.Contains(err.Error(), "resource temporarily unavailable"):
			f.Fix = "another process holds the store's lock (a daemon that does not answer on the socket?): stop it (lsof +D " + dir + ")"
		default:
			f.Fix = "check that " + dir + " is readable and writable by you"
		}
		return f
	}
	n := 0
	loadErr := db.LoadDeadlines(func(deadlines.Deadline) error { n++; return nil })
	if err := errors.Join(loadErr, db.Close()); err != nil {
		f.Level, f.Detail, f.Fix = levelProblem, err.Error(), "stop any daemon, then run `wakewheel repair`"
		return f
	}
	f.Detail = fmt.Sprintf("%s: healthy, %d deadlines persisted (opened directly: no daemon runs)", dir, n)
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
