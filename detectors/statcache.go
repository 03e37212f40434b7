package detectors

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"slices"
	"sync"
	"syscall"
)

// FileChanges is what a StatCache scan found: root-relative,
// slash-separated file paths, each list sorted.
type FileChanges struct {
	Added, Changed, Removed []string
}

// Empty reports whether nothing changed.
func (c FileChanges) Empty() bool {
	return len(c.Added) == 0 && len(c.Changed) == 0 && len(c.Removed) == 0
}

// Paths is the changed set: every added, changed or removed path, sorted.
func (c FileChanges) Paths() []string {
	out := make([]string, 0, len(c.Added)+len(c.Changed)+len(c.Removed))
	out = append(append(append(out, c.Added...), c.Changed...), c.Removed...)
	slices.Sort(out)
	return slices.Compact(out)
}

// StatCache detects changes in a plain (non-git) directory tree by
// comparing each file's lstat (modification time, size, inode, mode) with
// the previous scan. It never reads or hashes file contents: a full Scan
// costs one directory listing per directory and one lstat per file, and
// ScanDirs costs only the directories it is given.
//
// Directories are not paths of the changed set; the files in them are.
// Symbolic links are files (never followed). Skipped directories are never
// entered; the git control files are never reported.
//
// A StatCache is safe for concurrent use; scans are serialized.
type StatCache struct {
	root string
	skip SkipPolicy

	mu      sync.Mutex
	dirs    map[string]*dirStats // by root-relative directory, "" is the root
	files   int
	scanned bool
}

type dirStats struct {
	files   map[string]fileStat // by name: every non-directory entry
	subdirs map[string]struct{} // names of non-skipped subdirectories
}

// NewStatCache returns an empty cache of root. Its first Scan is the
// inventory: it reports every file as added.
func NewStatCache(root string, skip SkipPolicy) *StatCache {
	return &StatCache{root: root, skip: skip, dirs: make(map[string]*dirStats)}
}

// Len is the number of files in the cache.
func (c *StatCache) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.files
}

// Scan walks the whole tree and returns what changed since the last scan.
// A directory that cannot be read keeps its cached entries and is reported
// in the error, along with everything that could be compared.
func (c *StatCache) Scan() (FileChanges, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	var s scan
	c.scanDir("", true, &s)
	c.scanned = true
	return s.result()
}

// ScanDirs rescans only the given root-relative directories (typically the
// parent directories of a watcher's event paths): their files are compared,
// their vanished subdirectories dropped, their new subdirectories scanned
// whole; existing subdirectories are not entered. A directory not in the
// cache is replaced by its nearest cached ancestor, whose rescan finds it
// new. Before the first Scan, ScanDirs is a Scan.
func (c *StatCache) ScanDirs(dirs []string) (FileChanges, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	var s scan
	if !c.scanned {
		c.scanDir("", true, &s)
		c.scanned = true
		return s.result()
	}
	todo := make(map[string]struct{}, len(dirs))
	for _, d := range dirs {
		d = path.Clean("/" + d)[1:] // "", "a/b"; never above the root
		if c.skip.Skips(d, true) {
			continue
		}
		for d != "" && c.dirs[d] == nil {
			d = parentOf(d)
		}
		todo[d] = struct{}{}
	}
	order := make([]string, 0, len(todo))
	for d := range todo {
		order = append(order, d)
	}
	slices.Sort(order) // parents before children
	for _, d := range order {
		if d == "" || c.dirs[d] != nil {
			c.scanDir(d, false, &s)
		}
	}
	return s.result()
}

// scan accumulates one scan's changes and errors.
type scan struct {
	ch   FileChanges
	errs []error
}

func (s *scan) fail(err error) {
	if len(s.errs) < 16 {
		s.errs = append(s.errs, err)
	}
}

func (s *scan) result() (FileChanges, error) {
	slices.Sort(s.ch.Added)
	slices.Sort(s.ch.Changed)
	slices.Sort(s.ch.Removed)
	return s.ch, errors.Join(s.errs...)
}

// scanDir compares directory rel with its cached state. New subdirectories
// are scanned whole; existing ones only when deep.
func (c *StatCache) scanDir(rel string, deep bool, s *scan) {
	abs := c.root
	if rel != "" {
		abs = c.root + string(os.PathSeparator) + rel
	}
	entries, err := readDirEntries(abs)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
			c.dropDir(rel, s)
			return
		}
		s.fail(fmt.Errorf("detectors: stat cache: list %q: %w", rel, err))
		return
	}
	old := c.dirs[rel]
	cur := &dirStats{files: make(map[string]fileStat, len(entries)), subdirs: make(map[string]struct{})}
	for _, e := range entries {
		name := e.Name()
		child := joinRel(rel, name)
		if e.IsDir() {
			if !c.skip.Skips(child, true) {
				cur.subdirs[name] = struct{}{}
			}
			continue
		}
		if c.skip.Skips(child, false) || IsGitControl(child) {
			continue
		}
		info, err := e.Info()
		if err != nil {
			if !errors.Is(err, fs.ErrNotExist) {
				s.fail(fmt.Errorf("detectors: stat cache: lstat %q: %w", child, err))
			}
			continue // gone since the listing: reported removed below if known
		}
		st := statOf(info)
		cur.files[name] = st
		if old == nil {
			s.ch.Added = append(s.ch.Added, child)
		} else if was, ok := old.files[name]; !ok {
			s.ch.Added = append(s.ch.Added, child)
		} else if was != st {
			s.ch.Changed = append(s.ch.Changed, child)
		}
	}
	if old != nil {
		for name := range old.files {
			if _, ok := cur.files[name]; !ok {
				s.ch.Removed = append(s.ch.Removed, joinRel(rel, name))
			}
		}
		for name := range old.subdirs {
			if _, ok := cur.subdirs[name]; !ok {
				c.dropDir(joinRel(rel, name), s)
			}
		}
		c.files -= len(old.files)
	}
	c.files += len(cur.files)
	c.dirs[rel] = cur
	for name := range cur.subdirs {
		child := joinRel(rel, name)
		if deep || c.dirs[child] == nil {
			c.scanDir(child, true, s)
		}
	}
}

// dropDir forgets directory rel and everything below it, reporting its
// files removed.
func (c *StatCache) dropDir(rel string, s *scan) {
	d := c.dirs[rel]
	if d == nil {
		return
	}
	delete(c.dirs, rel)
	if rel != "" {
		if p := c.dirs[parentOf(rel)]; p != nil {
			delete(p.subdirs, path.Base(rel))
		}
	}
	for name := range d.files {
		s.ch.Removed = append(s.ch.Removed, joinRel(rel, name))
	}
	c.files -= len(d.files)
	for name := range d.subdirs {
		c.dropDir(joinRel(rel, name), s)
	}
}
