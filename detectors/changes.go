package detectors

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

var (
	// ErrNotRepository: the directory is not inside a git work tree.
	ErrNotRepository = errors.New("detectors: not inside a git work tree")
	// ErrUnknownRef: sinceRef does not name a commit or tree of the
	// repository (pruned after a rebase, or mistyped). The caller should
	// fall back to a full inventory and take the new Head as its since ref.
	ErrUnknownRef = errors.New("detectors: since ref does not name a commit or tree")
)

// ChangeSet is what changed in a git root since a reference commit.
type ChangeSet struct {
	// Paths are root-relative, slash-separated, sorted and unique, exactly
	// as they are on disk (spaces, newlines, quotes, non-UTF-8 bytes kept).
	Paths []string
	// Head is the commit HEAD pointed at when the work tree was examined,
	// "" on an unborn branch. It is the next since ref, once the set is
	// durably captured.
	Head string
	// Worktree is the part of Paths that differs between Head and the
	// index or the work tree, or is untracked (what status listed), sorted
	// and unique. The rest of Paths differs between sinceRef and Head
	// alone: committed, clean in the work tree.
	Worktree []string
}

// GitChanged returns the changed set of the git root repoDir since sinceRef:
//
//	git diff --name-only --no-renames <sinceRef>
//	∪ git status --porcelain=v2 -z --untracked-files=all
//
// filtered by skip. An empty sinceRef (the first detection) gives the status
// part alone. repoDir may be a subdirectory of a work tree; paths are then
// relative to it and limited to it.
//
// How it is computed, cheaper and equal: one status run
// (`--branch --no-renames`) gives the untracked files, the staged and
// unstaged changes against HEAD, and HEAD's commit; then
// `git diff-tree -r --name-only --no-renames -z <sinceRef> <HEAD>` adds the
// paths that differ between the two commits, comparing trees only, never
// the work tree. The union is the same set: a path differs between sinceRef
// and the work tree only if it differs between sinceRef and HEAD, or between
// HEAD and the index or work tree (which status lists); and a path that
// differs between sinceRef and HEAD is either in git diff's output or
// differs between HEAD and the work tree. It saves `git diff`'s own pass of
// an lstat per tracked file. When sinceRef is HEAD's full sha (nothing was
// committed since the last detection) diff-tree is not run at all;
// otherwise it runs alongside status, on HEAD's commit as read from .git,
// and again after status if status saw another HEAD (the set always
// belongs to the Head returned).
//
// Every git child runs as `git --no-optional-locks -C dir` with
// GIT_OPTIONAL_LOCKS=0 and -z output. Errors wrap ErrGit (with git's
// stderr, see GitError), ErrNotRepository or ErrUnknownRef.
func GitChanged(ctx context.Context, repoDir, sinceRef string, skip SkipPolicy) (ChangeSet, error) {
	dir, top, prefix, err := gitRoot(repoDir)
	if err != nil {
		return ChangeSet{}, err
	}
	ctx, cancel := context.WithCancel(ctx)
	var started []*treeDiff
	defer func() {
		cancel()
		for _, d := range started {
			<-d.done // no git child outlives the call
		}
	}()
	start := func(head string) *treeDiff {
		d := startTreeDiff(ctx, dir, sinceRef, head)
		started = append(started, d)
		return d
	}

	// Speculate: read HEAD's commit from .git and run diff-tree alongside
	// status. Only status's answer counts; a wrong guess costs a rerun.
	var spec *treeDiff
	if guess := readHeadHook(top); sinceRef != "" && guess != "" && guess != sinceRef {
		spec = start(guess)
	}

	statusArgs := []string{"status", "--porcelain=v2", "-z", "--untracked-files=all", "--branch", "--no-renames"}
	if prefix != "" {
		statusArgs = append(statusArgs, "--", ".")
	}
	out, err := runGit(ctx, dir, 64<<10, statusArgs...)
	if err != nil {
		return ChangeSet{}, err
	}
	var cs ChangeSet
	var paths []string // status's paths, then diff-tree's
	err = scanPorcelainV2Z(out,
		func(h string) {
			if oid, ok := strings.CutPrefix(h, "branch.oid "); ok && oid != "(initial)" {
				cs.Head = oid
			}
		},
		func(p string) { paths = append(paths, p) })
	if err != nil {
		return ChangeSet{}, fmt.Errorf("detectors: git status in %s: %w", dir, err)
	}

	cs.Worktree = filterChanged(slices.Clone(paths), prefix, skip)
	if sinceRef != "" && sinceRef != cs.Head {
		if spec == nil || spec.head != cs.Head {
			spec = start(cs.Head)
		}
		<-spec.done
		if spec.err != nil {
			return ChangeSet{}, classifyRefError(ctx, dir, sinceRef, spec.err)
		}
		paths = appendNULSeparated(paths, spec.out)
	}

	cs.Paths = filterChanged(paths, prefix, skip)
	return cs, nil
}

// treeDiff is a running listing of the paths that differ between sinceRef
// and head ("" for an unborn branch: everything sinceRef holds).
type treeDiff struct {
	head string
	out  []byte
	err  error
	done chan struct{}
}

func startTreeDiff(ctx context.Context, dir, sinceRef, head string) *treeDiff {
	d := &treeDiff{head: head, done: make(chan struct{})}
	args := []string{"diff-tree", "-r", "--name-only", "--no-renames", "-z", sinceRef, head}
	if head == "" {
		args = []string{"ls-tree", "-r", "--full-tree", "--name-only", "-z", sinceRef}
	}
	go func() {
		defer close(d.done)
		d.out, d.err = runGit(ctx, dir, 0, args...)
	}()
	return d
}

// filterChanged keeps the paths under prefix (made relative to it) that the
// policy does not skip, sorted and unique.
func filterChanged(paths []string, prefix string, skip SkipPolicy) []string {
	out := paths[:0]
	for _, p := range paths {
		if prefix != "" {
			rel, ok := strings.CutPrefix(p, prefix)
			if !ok {
				continue
			}
			p = rel
		}
		if p == "" || skip.Skips(p, false) || IsGitControl(p) {
			continue
		}
		out = append(out, p)
	}
	slices.Sort(out)
	return slices.Clip(slices.Compact(out))
}

// appendNULSeparated appends the NUL-terminated names of out to paths.
func appendNULSeparated(paths []string, out []byte) []string {
	for len(out) > 0 {
		i := 0
		for i < len(out) && out[i] != 0 {
			i++
		}
		if i > 0 {
			paths = append(paths, string(out[:i]))
		}
		if i == len(out) {
			break
		}
		out = out[i+1:]
	}
	return paths
}

// classifyRefError tells an unknown since ref from other git failures.
func classifyRefError(ctx context.Context, dir, sinceRef string, err error) error {
	if ctx.Err() != nil {
		return err
	}
	if _, verr := runGit(ctx, dir, 0, "rev-parse", "--verify", "-q", sinceRef+"^{tree}"); verr != nil {
		return fmt.Errorf("%w: %q: %w", ErrUnknownRef, sinceRef, err)
	}
	return err
}

// gitRoot resolves repoDir and finds its work tree's top level by looking
// for .git (a directory, or a file in linked work trees and submodules) in
// it and its parents, as git does. It returns the resolved directory, the
// top level, and the directory's slash-terminated path relative to the top
// level ("" at the top).
func gitRoot(repoDir string) (dir, top, prefix string, err error) {
	abs, err := filepath.Abs(repoDir)
	if err != nil {
		return "", "", "", fmt.Errorf("detectors: %w", err)
	}
	dir, err = filepath.EvalSymlinks(abs)
	if err != nil {
		return "", "", "", fmt.Errorf("detectors: git root %s: %w", repoDir, err)
	}
	if top = workTreeTop(dir); top == "" {
		return "", "", "", fmt.Errorf("%w: %s", ErrNotRepository, repoDir)
	}
	rel, err := filepath.Rel(top, dir)
	if err != nil {
		return "", "", "", fmt.Errorf("detectors: %w", err)
	}
	if rel == "." {
		return dir, top, "", nil
	}
	return dir, top, filepath.ToSlash(rel) + "/", nil
}

// workTreeTop walks from dir up to the nearest directory holding .git (a
// directory, or a file in linked work trees and submodules), as git
// does; "" when there is none.
func workTreeTop(dir string) string {
	for {
		if _, err := os.Lstat(filepath.Join(dir, ".git")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

// readHead guesses HEAD's commit from the files of top/.git (HEAD, a loose
// ref, packed-refs) without running git. It returns "" whenever it is not
// sure (a linked work tree, an unusual ref store); callers only use it to
// speculate, and check it against git's answer.
func readHead(top string) string {
	gitDir := filepath.Join(top, ".git")
	b, err := os.ReadFile(filepath.Join(gitDir, "HEAD"))
	if err != nil {
		return ""
	}
	head := strings.TrimSpace(string(b))
	ref, symbolic := strings.CutPrefix(head, "ref: ")
	if !symbolic {
		return objectName(head)
	}
	if !strings.HasPrefix(ref, "refs/") || strings.Contains(ref, "..") {
		return ""
	}
	if b, err := os.ReadFile(filepath.Join(gitDir, filepath.FromSlash(ref))); err == nil {
		return objectName(strings.TrimSpace(string(b)))
	}
	packed, err := os.ReadFile(filepath.Join(gitDir, "packed-refs"))
	if err != nil {
		return ""
	}
	for _, line := range strings.Split(string(packed), "\n") {
		if oid, name, ok := strings.Cut(line, " "); ok && name == ref {
			return objectName(oid)
		}
	}
	return ""
}

// readHeadHook is readHead; tests replace it to force a wrong guess.
var readHeadHook = readHead

// objectName returns s if it is a full SHA-1 or SHA-256 object name.
func objectName(s string) string {
	if len(s) != 40 && len(s) != 64 {
		return ""
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return ""
		}
	}
	return s
}

// IndexLocked reports whether root's .git/index.lock exists: a git command
// is changing the index (a checkout, a commit, a rebase step). The runner
// holds a detection back, for a bounded time, while it does.
func IndexLocked(root string) bool {
	_, err := os.Lstat(filepath.Join(root, filepath.FromSlash(IndexLockPath)))
	return err == nil
}
