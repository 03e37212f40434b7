package detectors

import (
	"fmt"
	"path"
	"slices"
	"strings"
)

// Root-relative paths of the git control files a watcher reports. They are
// the only entries of a top-level .git directory that are not skipped: the
// runner holds a detection back while IndexLockPath exists (one checkout is
// one detection), and a HEAD change marks a branch switch.
const (
	IndexLockPath = ".git/index.lock"
	HeadPath      = ".git/HEAD"
)

// defaultSkipNames are the directory names skipped at any depth by every
// SkipPolicy, in addition to the .git internals.
var defaultSkipNames = [...]string{"node_modules"}

// SkipPolicy says which paths under a root are noise. A skipped directory is
// never watched and never walked; a skipped path is never reported and never
// part of a changed set.
//
// Always skipped: a node_modules component at any depth; everything
// inside the top-level .git directory except the control files IndexLockPath
// and HeadPath (the .git directory itself is watched, non-recursively, so that
// those two stay observable); any nested .git (another repository's
// internals).
//
// The zero value applies the defaults only. Build one with NewSkipPolicy to
// add configured entries. A SkipPolicy is immutable and safe for concurrent
// use.
type SkipPolicy struct {
	names map[string]struct{} // component names skipped at any depth
	paths map[string]struct{} // root-relative paths skipped with all below
}

// NewSkipPolicy returns the default policy plus entries. An entry without a
// slash is a name skipped at any depth ("dist", "target"); an entry with a
// slash is a root-relative path skipped with everything below it
// ("web/build", or "/build" for the top-level build directory only).
// A leading "./" or "/" and a trailing "/" are ignored.
func NewSkipPolicy(entries ...string) (SkipPolicy, error) {
	var p SkipPolicy
	for _, raw := range entries {
		e := strings.TrimSpace(raw)
		isPath := strings.Contains(e, "/")
		e = strings.TrimPrefix(e, "./")
		e = strings.Trim(e, "/")
		if e == "" || e == "." {
			return SkipPolicy{}, fmt.Errorf("detectors: empty skip entry %q", raw)
		}
		if path.Clean(e) != e || e == ".." || strings.HasPrefix(e, "../") {
			return SkipPolicy{}, fmt.Errorf("detectors: skip entry %q is not a clean root-relative path", raw)
		}
		if isPath {
			if p.paths == nil {
				p.paths = make(map[string]struct{})
			}
			p.paths[e] = struct{}{}
			continue
		}
		if p.names == nil {
			p.names = make(map[string]struct{})
		}
		p.names[e] = struct{}{}
	}
	return p, nil
}

// MustSkipPolicy is NewSkipPolicy for fixed entries; it panics on an invalid one.
func MustSkipPolicy(entries ...string) SkipPolicy {
	p, err := NewSkipPolicy(entries...)
	if err != nil {
		panic(err)
	}
	return p
}

// Entries returns the configured entries (not the defaults), names first,
// each group sorted.
func (p SkipPolicy) Entries() []string {
	out := make([]string, 0, len(p.names)+len(p.paths))
	for n := range p.names {
		out = append(out, n)
	}
	slices.Sort(out)
	k := len(out)
	for q := range p.paths {
		out = append(out, q)
	}
	slices.Sort(out[k:])
	return out
}

// Skips reports whether the root-relative, slash-separated relPath is noise.
// isDir says whether relPath names a directory; it matters only for ".git"
// itself (a directory is watched, a .git file of a linked worktree is not).
// The root ("" or ".") is never skipped.
//
// Skips allocates nothing: the watcher calls it for every event.
func (p SkipPolicy) Skips(relPath string, isDir bool) bool {
	if relPath == "" || relPath == "." {
		return false
	}
	start := 0
	for i := 0; i <= len(relPath); i++ {
		if i < len(relPath) && relPath[i] != '/' {
			continue
		}
		comp := relPath[start:i]
		last := i == len(relPath)
		if comp == ".git" {
			if start != 0 {
				return true // a nested repository's internals
			}
			if last {
				return !isDir
			}
			rest := relPath[i+1:]
			return isDir || !isGitControl(rest)
		}
		if p.skipsName(comp) {
			return true
		}
		if p.paths != nil {
			if _, ok := p.paths[relPath[:i]]; ok {
				return true
			}
		}
		start = i + 1
	}
	return false
}

// IsGitControl reports whether relPath is one of the git control files a
// watcher reports (IndexLockPath, HeadPath). They are signals, not content:
// they never appear in a changed set.
func IsGitControl(relPath string) bool {
	return strings.HasPrefix(relPath, ".git/") && isGitControl(relPath[len(".git/"):])
}

func isGitControl(name string) bool {
	return name == "index.lock" || name == "HEAD"
}

func (p SkipPolicy) skipsName(comp string) bool {
	for _, n := range defaultSkipNames {
		if comp == n {
			return true
		}
	}
	if p.names == nil {
		return false
	}
	_, ok := p.names[comp]
	return ok
}
