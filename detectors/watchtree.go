package detectors

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strings"
	"syscall"
)

// dirTree is the set of watched directories (root-relative, "" is the
// root) with their parent links, so that dropping a directory drops its
// descendants without scanning every watch. Only the watcher's owning
// goroutine (Watch, then the loop) writes it, holding Watcher.mu so that
// snapshots can read it; the owner reads it without the lock.
type dirTree struct {
	dirs map[string]struct{}
	kids map[string]map[string]struct{}
}

func (t *dirTree) init() {
	t.dirs = make(map[string]struct{})
	t.kids = make(map[string]map[string]struct{})
}

func (t *dirTree) has(rel string) bool {
	_, ok := t.dirs[rel]
	return ok
}

func (t *dirTree) add(rel string) {
	t.dirs[rel] = struct{}{}
	if rel == "" {
		return
	}
	p := parentOf(rel)
	k := t.kids[p]
	if k == nil {
		k = make(map[string]struct{})
		t.kids[p] = k
	}
	k[rel] = struct{}{}
}

// removeSubtree forgets rel and every directory below it and returns them.
func (t *dirTree) removeSubtree(rel string) []string {
	if !t.has(rel) {
		return nil
	}
	if rel != "" {
		if k := t.kids[parentOf(rel)]; k != nil {
			delete(k, rel)
		}
	}
	var out []string
	stack := []string{rel}
	for len(stack) > 0 {
		d := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		out = append(out, d)
		delete(t.dirs, d)
		for c := range t.kids[d] {
			stack = append(stack, c)
		}
		delete(t.kids, d)
	}
	return out
}

func parentOf(rel string) string {
	if i := strings.LastIndexByte(rel, '/'); i >= 0 {
		return rel[:i]
	}
	return ""
}

func joinRel(dir, name string) string {
	if dir == "" {
		return name
	}
	return dir + "/" + name
}

// watchedDirs returns the watched directories, sorted (for tests and
// diagnostics).
func (w *Watcher) watchedDirs() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := make([]string, 0, len(w.tree.dirs))
	for d := range w.tree.dirs {
		out = append(out, d)
	}
	slices.Sort(out)
	return out
}

// addTree watches rel and every non-skipped directory below it: each
// directory is watched first and listed second, so that an entry created
// in between is seen by the listing or by the watch. With report, every
// entry found is reported (a new directory's content appeared at once).
func (w *Watcher) addTree(rel string, report bool) {
	stack := []string{rel}
	for len(stack) > 0 {
		d := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if w.state.Load() != stateNotify {
			return
		}
		if w.tree.has(d) {
			continue // raced with an event that already added it
		}
		if !w.watchDir(d) {
			continue
		}
		entries, err := readDirEntries(w.abs(d))
		if err != nil {
			if !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, syscall.ENOTDIR) {
				w.noteError(fmt.Errorf("list %q: %w", d, err))
			}
			continue
		}
		for _, e := range entries {
			child := joinRel(d, e.Name())
			if e.IsDir() {
				if w.skip.Skips(child, true) {
					continue
				}
				if report {
					w.report(child)
				}
				stack = append(stack, child)
				continue
			}
			if report && !w.skip.Skips(child, false) {
				w.report(child)
			}
		}
	}
}

// watchDir adds the watch of directory rel, charging the Budget. It reports
// whether rel is now watched; on a fatal condition (the watch limit, the
// Budget exhausted) it has switched the watcher to polling.
func (w *Watcher) watchDir(rel string) bool {
	if w.entry != nil {
		switch ok, gone := w.budget.take(w.entry, 1); {
		case gone:
			w.evict("evicted (least recently used) to make room for another root")
			return false
		case !ok:
			w.fallback(ModePolling, ReasonBudget, fmt.Sprintf(
				"no room for directory %q: budget is %d and no other root can be evicted", rel, w.budget.Max()))
			return false
		}
	}
	err := w.addWatch(w.abs(rel))
	if err == nil {
		w.mu.Lock()
		w.tree.add(rel)
		w.mu.Unlock()
		w.watched.Add(1)
		return true
	}
	if w.entry != nil {
		w.budget.release(w.entry, 1)
	}
	switch {
	case w.state.Load() != stateNotify:
		// Closed or evicted meanwhile: the error is fsnotify's ErrClosed.
	case errors.Is(err, syscall.ENOSPC):
		w.fallback(ModePolling, ReasonWatchLimit, fmt.Sprintf(
			"the kernel refused a watch for %q: inotify watch limit reached%s", rel, watchLimitHint()))
	case errors.Is(err, fs.ErrNotExist), errors.Is(err, syscall.ENOTDIR):
		// Gone before it could be watched: its parent reports the removal.
	default:
		w.noteError(fmt.Errorf("watch %q: %w", rel, err))
	}
	return false
}

// dropTree forgets the watches of rel and its descendants (rel was removed
// or renamed). The kernel has usually dropped them already; a renamed
// directory's are still live and are removed here, so that a later watch
// of the same inode under its new name starts clean.
func (w *Watcher) dropTree(rel string) {
	w.mu.Lock()
	gone := w.tree.removeSubtree(rel)
	w.mu.Unlock()
	for _, d := range gone {
		_ = w.fsw.Remove(w.abs(d)) // ErrNonExistentWatch when the kernel was first
	}
	w.watched.Add(-int64(len(gone)))
	if w.entry != nil {
		w.budget.release(w.entry, len(gone))
	}
}

// countDirs counts the directories Watch will watch under root, so that the
// Budget can refuse a root before evicting anyone for it.
func countDirs(root string, skip SkipPolicy) int {
	n := 0
	stack := []string{""}
	for len(stack) > 0 {
		d := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		n++
		abs := root
		if d != "" {
			abs = root + string(os.PathSeparator) + d
		}
		entries, err := readDirEntries(abs)
		if err != nil {
			continue
		}
		for _, e := range entries {
			if child := joinRel(d, e.Name()); e.IsDir() && !skip.Skips(child, true) {
				stack = append(stack, child)
			}
		}
	}
	return n
}

// readDirEntries lists a directory without sorting it.
func readDirEntries(abs string) ([]os.DirEntry, error) {
	f, err := os.Open(abs)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return f.ReadDir(-1)
}
