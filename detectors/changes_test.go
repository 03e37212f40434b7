package detectors

import (
	"context"
	"errors"
	"github.com/wakewheel/wakewheel/internal/gitenv"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// literalUnion is the changed set as the design states it, computed the
// slow way: git diff --name-only --no-renames -z <since> ∪ status.
func literalUnion(t *testing.T, dir, since string, skip SkipPolicy) []string {
	t.Helper()
	var all []string
	if since != "" {
		all = splitNUL(git(t, dir, "diff", "--name-only", "--no-renames", "-z", since, "--"))
	}
	st, err := ParsePorcelainV2Z(git(t, dir, "--no-optional-locks", "status", "--porcelain=v2", "-z", "--untracked-files=all"))
	if err != nil {
		t.Fatal(err)
	}
	all = append(all, st...)
	var out []string
	for _, p := range all {
		if !skip.Skips(p, false) {
			out = append(out, p)
		}
	}
	return sortedUnique(out)
}

func mustChanged(t *testing.T, dir, since string, skip SkipPolicy) ChangeSet {
	t.Helper()
	cs, err := GitChanged(context.Background(), dir, since, skip)
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

// The seed's daemon_tick_detects_new_untracked_file and
// daemon_tick_ignores_new_untracked_file_in_noise_dir.
func TestGitChangedUntrackedAndNoise(t *testing.T) {
	dir := t.TempDir()
	genRepo(t, dir, 20)
	head := headOf(t, dir)
	writeFile(t, dir, "brand-new.go", "package x\n")
	writeFile(t, dir, "node_modules/left-pad/index.js", "x")
	writeFile(t, dir, "web/node_modules/a.js", "x")
	writeFile(t, dir, "out/gen.txt", "x")

	cs := mustChanged(t, dir, head, MustSkipPolicy("out"))
	if want := []string{"brand-new.go"}; !slices.Equal(cs.Paths, want) {
		t.Fatalf("paths %q, want %q", cs.Paths, want)
	}
	if cs.Head != head {
		t.Fatalf("head %q, want %q", cs.Head, head)
	}
	// First run: no since ref, status alone.
	if cs := mustChanged(t, dir, "", SkipPolicy{}); !slices.Equal(cs.Paths, []string{"brand-new.go", "out/gen.txt"}) || cs.Head != head {
		t.Fatalf("first run: %+v", cs)
	}
}

// Every kind of change, compared with the literal union of the design.
func TestGitChangedEqualsLiteralUnion(t *testing.T) {
	dir := t.TempDir()
	genRepo(t, dir, 30)
	a := headOf(t, dir)
	// Committed after A: changed, added, deleted, and one reverted in the
	// work tree afterwards.
	writeFile(t, dir, "d000/e00/f00000.txt", "committed change")
	writeFile(t, dir, "committed-new.txt", "x")
	writeFile(t, dir, "reverted.txt", "one")
	git(t, dir, "rm", "-q", "d000/e00/f00001.txt")
	git(t, dir, "add", "-A")
	git(t, dir, "commit", "-q", "-m", "B")
	writeFile(t, dir, "d000/e00/f00000.txt", "v1 d000/e00/f00000.txt\n") // back to A's content
	// Work tree and index against HEAD.
	writeFile(t, dir, "d000/e00/f00002.txt", "unstaged")
	writeFile(t, dir, "d000/e00/f00003.txt", "staged")
	git(t, dir, "add", "d000/e00/f00003.txt")
	if err := os.Remove(filepath.Join(dir, "d000/e00/f00004.txt")); err != nil {
		t.Fatal(err)
	}
	git(t, dir, "rm", "-q", "--cached", "d000/e00/f00005.txt") // staged delete, now untracked
	if err := os.Mkdir(filepath.Join(dir, "moved"), 0o755); err != nil {
		t.Fatal(err)
	}
	git(t, dir, "mv", "d000/e00/f00006.txt", "moved/f6.txt") // staged rename
	writeFile(t, dir, "intent.txt", "x")
	git(t, dir, "add", "-N", "intent.txt")
	writeFile(t, dir, "new/deep/dir/u.txt", "x")
	writeFile(t, dir, "node_modules/n.js", "x")

	skip := SkipPolicy{}
	cs := mustChanged(t, dir, a, skip)
	want := literalUnion(t, dir, a, skip)
	if missing, extra := diffSets(want, cs.Paths); missing != nil || extra != nil {
		t.Fatalf("missing %q extra %q", missing, extra)
	}
	for _, p := range []string{"d000/e00/f00000.txt", "d000/e00/f00001.txt", "committed-new.txt", "reverted.txt",
		"d000/e00/f00004.txt", "d000/e00/f00006.txt", "moved/f6.txt", "new/deep/dir/u.txt", "intent.txt"} {
		if !slices.Contains(cs.Paths, p) {
			t.Errorf("%q missing from %q", p, cs.Paths)
		}
	}
	if !slices.IsSorted(cs.Paths) || len(slices.Compact(slices.Clone(cs.Paths))) != len(cs.Paths) {
		t.Errorf("not sorted and unique: %q", cs.Paths)
	}
}

func TestGitChangedUnmerged(t *testing.T) {
	dir := t.TempDir()
	genRepo(t, dir, 3)
	a := headOf(t, dir)
	git(t, dir, "checkout", "-q", "-b", "other")
	writeFile(t, dir, "d000/e00/f00000.txt", "theirs")
	git(t, dir, "commit", "-q", "-am", "theirs")
	git(t, dir, "checkout", "-q", "main")
	writeFile(t, dir, "d000/e00/f00000.txt", "ours")
	git(t, dir, "commit", "-q", "-am", "ours")
	cmd := []string{"-c", "user.name=t", "-c", "user.email=t@t", "-C", dir, "merge", "-q", "other"}
	_ = runQuiet("git", cmd...) // conflicts: exit 1 expected
	st := git(t, dir, "status", "--porcelain=v2", "-z")
	if !strings.HasPrefix(string(st), "u ") {
		t.Fatalf("expected an unmerged entry, got %q", st)
	}
	cs := mustChanged(t, dir, a, SkipPolicy{})
	if missing, extra := diffSets(literalUnion(t, dir, a, SkipPolicy{}), cs.Paths); missing != nil || extra != nil {
		t.Fatalf("missing %q extra %q", missing, extra)
	}
	if !slices.Contains(cs.Paths, "d000/e00/f00000.txt") {
		t.Fatalf("conflicted path missing: %q", cs.Paths)
	}
}

func TestGitChangedUnbornHead(t *testing.T) {
	dir := t.TempDir()
	git(t, dir, "init", "-q")
	writeFile(t, dir, "a.txt", "x")
	cs := mustChanged(t, dir, "", SkipPolicy{})
	if cs.Head != "" || !slices.Equal(cs.Paths, []string{"a.txt"}) {
		t.Fatalf("%+v", cs)
	}
}

func TestGitChangedSinceRefOnUnbornBranch(t *testing.T) {
	dir := t.TempDir()
	genRepo(t, dir, 3)
	a := headOf(t, dir)
	git(t, dir, "checkout", "-q", "--orphan", "fresh")
	git(t, dir, "rm", "-rq", "--cached", ".")
	cs := mustChanged(t, dir, a, SkipPolicy{})
	if cs.Head != "" {
		t.Fatalf("head %q on an unborn branch", cs.Head)
	}
	want := []string{"d000/e00/f00000.txt", "d000/e00/f00001.txt", "d000/e00/f00002.txt"}
	if !slices.Equal(cs.Paths, want) {
		t.Fatalf("paths %q, want %q", cs.Paths, want)
	}
}

func TestGitChangedSubdirectoryRoot(t *testing.T) {
	dir := t.TempDir()
	genRepo(t, dir, 250) // d000/e00, d000/e01, d000/e02
	a := headOf(t, dir)
	writeFile(t, dir, "d000/e01/f00100.txt", "changed")
	writeFile(t, dir, "d000/e01/new.txt", "x")
	writeFile(t, dir, "d000/e00/f00000.txt", "changed outside the root")
	writeFile(t, dir, "d000/e02/f00200.txt", "committed")
	git(t, dir, "commit", "-q", "-am", "B")
	sub := filepath.Join(dir, "d000", "e01")
	cs := mustChanged(t, sub, a, SkipPolicy{})
	if want := []string{"f00100.txt", "new.txt"}; !slices.Equal(cs.Paths, want) {
		t.Fatalf("paths %q, want %q", cs.Paths, want)
	}
}

func TestGitChangedErrors(t *testing.T) {
	dir := t.TempDir()
	genRepo(t, dir, 2)
	_, err := GitChanged(context.Background(), dir, "0123456789abcdef0123456789abcdef01234567", SkipPolicy{})
	var gerr *GitError
	if !errors.Is(err, ErrUnknownRef) || !errors.Is(err, ErrGit) || !errors.As(err, &gerr) || gerr.Stderr == "" {
		t.Fatalf("unknown ref: %v", err)
	}
	if !strings.Contains(err.Error(), "fatal") {
		t.Errorf("error lacks git's message: %v", err)
	}
	if _, err := GitChanged(context.Background(), t.TempDir(), "", SkipPolicy{}); !errors.Is(err, ErrNotRepository) {
		// The temporary directory could sit inside a work tree; then git
		// itself must have answered.
		if err == nil {
			t.Skip("temporary directory is inside a git work tree")
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := GitChanged(ctx, dir, "", SkipPolicy{}); !errors.Is(err, context.Canceled) {
		t.Fatalf("canceled context: %v", err)
	}
}

// Names git would quote without -z, and bytes that are not UTF-8.
var weirdNames = []string{
	"with space.txt",
	"two  spaces .txt",
	"new\nline.txt",
	"tab\there.txt",
	`double"quote.txt`,
	"single'quote.txt",
	`back\slash.txt`,
	"ünïcödé.txt",
	"日本語/ファイル.txt",
	"emoji 🚀.md",
	"latin1-\xe9\xff.bin",
	"dir with space/\"q\" \\ \n.txt",
	"-leading-dash.txt",
	" leading space",
	"trailing space ",
}

func TestGitChangedWeirdNames(t *testing.T) {
	dir := t.TempDir()
	git(t, dir, "init", "-q")
	committed := weirdNames[:len(weirdNames)/2]
	for _, n := range committed {
		writeFile(t, dir, "c/"+n, "v1")
	}
	git(t, dir, "add", "-A")
	git(t, dir, "commit", "-q", "-m", "A")
	a := headOf(t, dir)
	var want []string
	for _, n := range committed {
		writeFile(t, dir, "c/"+n, "v2") // modified, unstaged
		want = append(want, "c/"+n)
	}
	for _, n := range weirdNames {
		writeFile(t, dir, "u/"+n, "x") // untracked
		want = append(want, "u/"+n)
	}
	for _, n := range weirdNames {
		writeFile(t, dir, "s/"+n, "x") // committed after A
		want = append(want, "s/"+n)
	}
	git(t, dir, "add", "s")
	git(t, dir, "commit", "-q", "-m", "B")

	cs := mustChanged(t, dir, a, SkipPolicy{})
	if missing, extra := diffSets(sortedUnique(want), cs.Paths); missing != nil || extra != nil {
		t.Fatalf("wrong paths: missing %q extra %q", missing, extra)
	}
}

func runQuiet(name string, args ...string) error {
	cmd := exec.Command(name, args...)
	cmd.Env = gitenv.Env()
	return cmd.Run()
}

func TestReadHead(t *testing.T) {
	dir := t.TempDir()
	genRepo(t, dir, 2)
	head := headOf(t, dir)
	if got := readHead(dir); got != head {
		t.Fatalf("loose ref: %q, want %q", got, head)
	}
	git(t, dir, "pack-refs", "--all", "--prune")
	if got := readHead(dir); got != head {
		t.Fatalf("packed ref: %q, want %q", got, head)
	}
	git(t, dir, "checkout", "-q", "--detach")
	if got := readHead(dir); got != head {
		t.Fatalf("detached: %q, want %q", got, head)
	}
	git(t, dir, "checkout", "-q", "--orphan", "unborn")
	if got := readHead(dir); got != "" {
		t.Fatalf("unborn: %q", got)
	}
}

// A wrong guess (HEAD moved between the read of .git and git status) must
// not leak into the set: the set belongs to the Head git status saw.
func TestGitChangedWrongHeadGuess(t *testing.T) {
	dir := t.TempDir()
	genRepo(t, dir, 3)
	a := headOf(t, dir)
	writeFile(t, dir, "c.txt", "x")
	git(t, dir, "add", "c.txt")
	git(t, dir, "commit", "-q", "-m", "C")
	c := headOf(t, dir)
	git(t, dir, "checkout", "-q", "--detach", a)
	writeFile(t, dir, "b.txt", "x")
	git(t, dir, "add", "b.txt")
	git(t, dir, "commit", "-q", "-m", "B")
	b := headOf(t, dir)

	readHeadHook = func(string) string { return c }
	defer func() { readHeadHook = readHead }()
	cs := mustChanged(t, dir, a, SkipPolicy{})
	if cs.Head != b || !slices.Equal(cs.Paths, []string{"b.txt"}) {
		t.Fatalf("got %+v, want only b.txt at %s", cs, b)
	}
}
