package detectors

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
)

// Tracker is the change detection of one root: a root's path goes in once
// and a changed set comes out. It finds whether the root is in a git work
// tree (the .git walk), and then
//
//   - git: GitChanged since the caller's since ref, less the paths exactly
//     as they were (lstat: mtime, ctime, size, inode, mode) when the
//     previous set was captured — a dirty file is not handed again at
//     every burst until it is committed — plus the paths of the previous
//     set that changed back (a reverted file leaves the status). Only the
//     set's work-tree part (what status listed) is remembered and lstat'd;
//     committed paths (a checkout's) are handed as they are. When the
//     since ref is gone (a rebase, a gc) every tracked file is taken once
//     (git ls-files) with the new HEAD as the ref;
//   - a plain directory: a StatCache, over the dirty directories the
//     watcher saw, or the whole tree when events may be missing.
//
// The tracker owns the memory those rules need (the captured set, the
// stat cache). A detection's memory takes effect only when the caller
// says the result is durably captured (Captured): a detection whose
// capture failed is computed again from the old memory.
//
// A Tracker is used by one goroutine at a time (the runner's worker),
// except Ahead and Unahead, which any goroutine may call (ahead.go).
type Tracker struct {
	dir  string
	skip SkipPolicy

	top      string              // the work tree's top, from the last Probe; "" plain
	captured map[string]fileStat // git: the last captured set, as it was on disk
	next     map[string]fileStat // git: the last Detect's set, until Captured
	stat     *StatCache          // plain directories
	ahead    aheadSlot           // git: a detection computed ahead (ahead.go)
}

// NewTracker returns the tracker of the root dir (absolute, clean).
func NewTracker(dir string, skip SkipPolicy) *Tracker {
	return &Tracker{dir: dir, skip: skip}
}

// Scan is what a detection is told by its caller.
type Scan struct {
	// SinceRef (git) is the commit the last captured set belongs to; ""
	// at the first detection.
	SinceRef string
	// Dirty (plain) are the root-relative directories the watcher saw
	// change since the last detection.
	Dirty []string
	// Full (plain): events may be missing (the first detection, polling,
	// an overflow, too many dirty directories): scan the whole tree.
	Full bool
	// Mark (git) is the caller's count of the root's events now, 0 if
	// events may be missing: a changed set computed ahead at the same
	// mark (no event since) is the result (ahead.go).
	Mark uint64
}

// Result is a detection's changed set.
type Result struct {
	// Paths are root-relative and slash-separated, exactly as on disk.
	Paths []string
	// Git tells a git root from a plain directory.
	Git bool
	// Head is the HEAD commit the set belongs to (git; "" on an unborn
	// branch): the next since ref once the set is captured.
	Head string
	// Inventory: the since ref no longer existed, so every tracked file
	// is in Paths.
	Inventory bool
	// Partial (plain) is set when some directories could not be read:
	// Paths holds everything that could be compared.
	Partial error
	// Ahead (git): the set was computed ahead, during the burst's silence.
	Ahead bool
}

// Probe walks from the root up to the nearest .git, as git does, and
// reports whether the root is in a git work tree and whether that work
// tree's index is locked (a git command is changing it: a checkout). It
// is cheap (a few lstats); Detect uses what it found.
func (t *Tracker) Probe() (git, locked bool) {
	t.top = workTreeTop(t.dir)
	return t.top != "", t.top != "" && IndexLocked(t.top)
}

// Detect computes the changed set. Call Probe first (Detect probes
// itself if it never was). An error (git only) means no result at all; a
// plain directory always has one, Partial saying what could not be read.
func (t *Tracker) Detect(ctx context.Context, s Scan) (Result, error) {
	if t.top == "" {
		t.Probe()
	}
	if t.top != "" {
		return t.gitChanged(ctx, s.SinceRef, s.Mark)
	}
	return t.dirChanged(s)
}

// Captured tells the tracker that the last Detect's result is durably
// captured: it becomes the memory the next detection compares against.
func (t *Tracker) Captured() {
	if t.next != nil {
		t.captured, t.next = t.next, nil
	}
}

func (t *Tracker) gitChanged(ctx context.Context, since string, mark uint64) (Result, error) {
	res := Result{Git: true}
	cs, ahead := t.takeAhead(ctx, since, mark)
	var err error
	if res.Ahead = ahead; !ahead {
		cs, err = GitChanged(ctx, t.dir, since, t.skip)
	}
	if errors.Is(err, ErrUnknownRef) {
		res.Inventory = true
		cs, err = GitChanged(ctx, t.dir, "", t.skip)
		if err == nil {
			var tracked []string
			tracked, err = t.lsFiles(ctx)
			cs.Paths = append(cs.Paths, tracked...)
			slices.Sort(cs.Paths)
			cs.Paths = slices.Compact(cs.Paths)
		}
	}
	if err != nil {
		return Result{}, err
	}
	res.Head = cs.Head
	// Only what status listed (dirty or untracked against Head) can come
	// back at the next detection, whose since ref is Head: those paths are
	// remembered as they are now. A path that differs between the refs
	// alone (a checkout's files) is committed and clean; it is compared
	// only if it is remembered (captured while dirty), never lstat'd
	// otherwise, so a checkout costs no lstat pass of its own.
	dirty := make(map[string]struct{}, len(cs.Worktree))
	for _, p := range cs.Worktree {
		dirty[p] = struct{}{}
	}
	next := make(map[string]fileStat, len(cs.Worktree))
	out := make([]string, 0, len(cs.Paths))
	for _, p := range cs.Paths {
		old, known := t.captured[p]
		_, isDirty := dirty[p]
		if !known && !isDirty {
			out = append(out, p)
			continue
		}
		st := lstatRel(t.dir, p)
		if isDirty {
			next[p] = st
		}
		if known && old == st {
			continue
		}
		out = append(out, p)
	}
	for p, old := range t.captured {
		if _, still := next[p]; still {
			continue
		}
		if _, listed := slices.BinarySearch(cs.Paths, p); !listed && lstatRel(t.dir, p) != old {
			out = append(out, p) // changed back
		}
	}
	t.next = next
	res.Paths = out
	return res, nil
}

func (t *Tracker) dirChanged(s Scan) (Result, error) {
	t.captured, t.next = nil, nil // a root that was a work tree forgets it
	full := s.Full
	if t.stat == nil {
		t.stat = NewStatCache(t.dir, t.skip)
		full = true
	}
	var ch FileChanges
	var err error
	switch {
	case full:
		ch, err = t.stat.Scan()
	case len(s.Dirty) > 0:
		ch, err = t.stat.ScanDirs(s.Dirty)
	}
	return Result{Paths: ch.Paths(), Partial: err}, nil
}

// lsFiles lists the tracked files under the root, root-relative, the skip
// policy applied.
func (t *Tracker) lsFiles(ctx context.Context) ([]string, error) {
	out, err := runGit(ctx, t.dir, 0, "ls-files", "-z")
	if err != nil {
		return nil, fmt.Errorf("detectors: listing tracked files: %w", err)
	}
	var paths []string
	for _, p := range bytes.Split(out, []byte{0}) {
		if s := string(p); s != "" && !t.skip.Skips(s, false) && !IsGitControl(s) {
			paths = append(paths, s)
		}
	}
	return paths, nil
}
