package roots

import (
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/wakewheel/wakewheel/detectors"
)

// Files that must never trigger a detection.
//
// The daemon's own files (Options.OwnFiles: its log file, store, socket)
// are left out of every root that holds them: they join the root's skip
// policy as root-relative paths, so they are never watched, never evented
// and never part of a changed set. A daemon whose log lives in a watched
// root would otherwise feed itself forever.
//
// A root's ingest command may write files inside the root (an index, a
// log). Each such write is an event, a detection, a batch, another run:
// a loop. A path is taken as the command's own output when it was written
// while a command of the root ran (an event during the run) at
// selfWriteStrikes consecutive detections that captured it; from then on
// its events are dropped and it leaves the changed sets, with a warning
// naming it and the --skip that makes it permanent. The first deliveries
// of such a path still happen (nothing is lost on a guess), and a path
// captured once without having been written during a run starts over.

// selfWriteStrikes is how many consecutive detections must find a path
// written during the root's own runs before it is taken as the command's
// output: one is a coincidence (a user saving while ingest runs), three in
// a row is the loop.
const selfWriteStrikes = 3

// maxDuringRun bounds the paths remembered as written during one run.
const maxDuringRun = 1024

// afterRun is how long after a run ends its writes still count as its
// own: the kernel's event for the command's last write reaches the
// watcher a little after the command exits.
const afterRun = 250 * time.Millisecond

// ownSkip returns the skip entries that keep the daemon's files out of
// root: each own file or directory under it, root-relative.
func ownSkip(root string, own []string) []string {
	var out []string
	for _, f := range own {
		if f == "" {
			continue
		}
		rel, err := filepath.Rel(root, f)
		if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, "../") {
			continue
		}
		out = append(out, "/"+filepath.ToSlash(rel))
	}
	return out
}

// policy is the effective skip policy of root: its own entries, plus the
// daemon's files under it.
func (m *Manager) policy(root string, entries []string) (detectors.SkipPolicy, error) {
	return detectors.NewSkipPolicy(append(append([]string(nil), entries...), ownSkip(root, m.opts.OwnFiles)...)...)
}

// selfWrites tracks, for one root, the paths written while its commands
// ran. The watcher's goroutine calls event; the detection handler calls
// judge. Its own lock: never Manager.mu.
type selfWrites struct {
	now func() time.Time // the manager's clock

	mu      sync.Mutex
	running bool
	ended   time.Time           // when the last run ended
	during  map[string]struct{} // paths evented during the current or last run
	strikes map[string]int
	muted   map[string]struct{} // the commands' own output: ignored
}

// begin and end bracket one of the root's runs.
func (s *selfWrites) begin() { s.mark(true) }
func (s *selfWrites) end()   { s.mark(false) }

func (s *selfWrites) mark(running bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.running = running
	if !running {
		s.ended = s.now()
	}
}

// inRun reports whether a write now belongs to a run; s.mu is held.
func (s *selfWrites) inRun() bool {
	return s.running || (!s.ended.IsZero() && s.now().Sub(s.ended) <= afterRun)
}

// event notes rel and reports whether it is muted (to be dropped).
func (s *selfWrites) event(rel string) (muted bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.muted[rel]; ok {
		return true
	}
	if s.inRun() && len(s.during) < maxDuringRun {
		if s.during == nil {
			s.during = make(map[string]struct{})
		}
		s.during[rel] = struct{}{}
	}
	return false
}

// judge takes a detection's changed set: it returns the paths to capture
// (without the muted ones) and the paths it muted now. The paths written
// during runs are forgotten: each detection judges the runs since the
// previous one.
func (s *selfWrites) judge(paths []string) (keep, mutedNow []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	during := s.during
	s.during = nil
	keep = paths[:0:0]
	for _, p := range paths {
		if _, ok := s.muted[p]; ok {
			continue
		}
		if _, ok := during[p]; !ok {
			delete(s.strikes, p)
			keep = append(keep, p)
			continue
		}
		if s.strikes == nil {
			s.strikes = make(map[string]int)
		}
		s.strikes[p]++
		if s.strikes[p] < selfWriteStrikes {
			keep = append(keep, p)
			continue
		}
		delete(s.strikes, p)
		if s.muted == nil {
			s.muted = make(map[string]struct{})
		}
		s.muted[p] = struct{}{}
		mutedNow = append(mutedNow, p)
	}
	return keep, mutedNow
}

// mutedPaths lists the paths taken as the commands' own output.
func (s *selfWrites) mutedPaths() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]string, 0, len(s.muted))
	for p := range s.muted {
		out = append(out, p)
	}
	return sortedCopy(out)
}
