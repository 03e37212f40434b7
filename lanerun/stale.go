package lanerun

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/wakewheel/wakewheel/internal/clock"
)

// staleWait bounds how long Start waits for a dead daemon's run to go.
const staleWait = 5 * time.Second

// reapStale kills the process group of every run a killed daemon left
// (its <lane>.run file names the group) and waits for it to be gone, so
// that a lane never has two runs at once across a crash.
func (m *Manager) reapStale() {
	if m.opts.Dir == "" {
		return
	}
	files, _ := filepath.Glob(filepath.Join(m.opts.Dir, "*.run"))
	for _, f := range files {
		b, err := os.ReadFile(f)
		pgid, perr := strconv.Atoi(strings.TrimSpace(string(b)))
		if err != nil || perr != nil || pgid <= 1 {
			os.Remove(f)
			continue
		}
		if groupAlive(pgid) {
			_ = syscall.Kill(-pgid, syscall.SIGKILL)
			real := clock.Real{}
			deadline := real.Now().Add(staleWait)
			for groupAlive(pgid) && real.Now().Before(deadline) {
				t := real.NewTimer(10 * time.Millisecond)
				<-t.C()
			}
			m.log.Warn().Str("run", filepath.Base(f)).Int("pgid", pgid).Msg("ended a run left by a daemon that was killed")
		}
		os.Remove(f)
	}
}
