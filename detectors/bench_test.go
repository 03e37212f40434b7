package detectors

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/fsnotify/fsnotify"
)

// BenchmarkDetect measures the detection of a burst in a git root: the
// source system's burst sizes (10, 100, 1000 changed files) in generated
// repositories of 10k and (with WAKEWHEEL_LONG=1) 100k files.
//
//	gitchanged            GitChanged(root, sinceRef=HEAD) after an uncommitted burst
//	baseline              bare `git status --porcelain=v2 -z -uall`, same tree
//	gitchanged-committed  GitChanged(root, sinceRef=HEAD~1) after the burst was committed
//	baseline-committed    bare status, same tree
//	literal, literal-committed
//	                      the design's formula run as written, for comparison:
//	                      `git diff --name-only --no-renames -z <since>` then status
//
// The target is gitchanged <= 1.5x baseline. Run:
//
//	go test -run '^$' -bench Detect ./detectors/
//	WAKEWHEEL_LONG=1 go test -run '^$' -bench Detect -timeout 60m ./detectors/
func BenchmarkDetect(b *testing.B) {
	for _, size := range []struct {
		name string
		n    int
		long bool
	}{{"10k", 10_000, false}, {"100k", 100_000, true}} {
		b.Run(size.name, func(b *testing.B) {
			if size.long && !longTests() {
				b.Skip("set WAKEWHEEL_LONG=1")
			}
			root := b.TempDir()
			paths := treePaths(size.n)
			importRepo(b, root, importCommit{ref: "main", msg: "A", paths: paths,
				content: func(p string) string { return "v1 " + p + "\n" }})
			quiesce(b, root)
			base := headOf(b, root)
			for _, burst := range []int{10, 100, 1000} {
				b.Run(strconv.Itoa(burst), func(b *testing.B) {
					step := size.n / burst
					for i := 0; i < burst; i++ {
						p := filepath.Join(root, paths[i*step])
						if err := os.WriteFile(p, []byte("burst "+strconv.Itoa(burst)+"\n"), 0o644); err != nil {
							b.Fatal(err)
						}
					}
					b.Run("gitchanged", func(b *testing.B) { benchGitChanged(b, root, base, burst) })
					b.Run("baseline", func(b *testing.B) { benchStatus(b, root) })
					b.Run("literal", func(b *testing.B) { benchLiteral(b, root, base) })

					git(b, root, "commit", "-q", "-a", "-m", "burst")
					quiesce(b, root)
					b.Run("gitchanged-committed", func(b *testing.B) { benchGitChanged(b, root, base, burst) })
					b.Run("baseline-committed", func(b *testing.B) { benchStatus(b, root) })
					b.Run("literal-committed", func(b *testing.B) { benchLiteral(b, root, base) })

					git(b, root, "reset", "-q", "--hard", base)
					quiesce(b, root)
				})
			}
		})
	}
}

func benchGitChanged(b *testing.B, root, since string, want int) {
	ctx := context.Background()
	for b.Loop() {
		cs, err := GitChanged(ctx, root, since, SkipPolicy{})
		if err != nil {
			b.Fatal(err)
		}
		if len(cs.Paths) != want {
			b.Fatalf("%d paths, want %d", len(cs.Paths), want)
		}
	}
}

func benchStatus(b *testing.B, root string) {
	for b.Loop() {
		if out, err := exec.Command("git", "-C", root, "status", "--porcelain=v2", "-z", "-uall").Output(); err != nil {
			b.Fatalf("%v: %s", err, out)
		}
	}
}

func benchLiteral(b *testing.B, root, since string) {
	for b.Loop() {
		for _, args := range [][]string{
			{"--no-optional-locks", "-C", root, "diff", "--name-only", "--no-renames", "-z", since, "--"},
			{"--no-optional-locks", "-C", root, "status", "--porcelain=v2", "-z", "-uall"},
		} {
			if out, err := exec.Command("git", args...).Output(); err != nil {
				b.Fatalf("%v: %s", err, out)
			}
		}
	}
}

// quiesce lets the racy-git window pass and refreshes the index, so that
// every run compares stat data only, as on a long-lived work tree.
func quiesce(tb testing.TB, root string) {
	tb.Helper()
	time.Sleep(1100 * time.Millisecond)
	git(tb, root, "update-index", "-q", "--refresh")
}

// BenchmarkStatCacheScan is the plain-directory detector: a full scan of an
// unchanged 10k-file tree, and a ScanDirs of the one directory that changed.
func BenchmarkStatCacheScan(b *testing.B) {
	root := b.TempDir()
	genTree(b, root, 10_000, "v1 ")
	c := NewStatCache(root, SkipPolicy{})
	if _, err := c.Scan(); err != nil {
		b.Fatal(err)
	}
	b.Run("full-10k", func(b *testing.B) {
		for b.Loop() {
			if _, err := c.Scan(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("dirs-1of100", func(b *testing.B) {
		for b.Loop() {
			if _, err := c.ScanDirs([]string{"d005/e05"}); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkWatcherHandle is the event loop's cost per event, without the
// kernel: Write events on files of watched directories, each reported.
func BenchmarkWatcherHandle(b *testing.B) {
	root := b.TempDir()
	genTree(b, root, 1000, "v1 ")
	w, err := Watch(WatchOptions{Root: root, OnEvent: func(string) {}})
	if err != nil {
		b.Fatal(err)
	}
	defer w.Close()
	names := make([]string, 0, 1000)
	for _, p := range treePaths(1000) {
		names = append(names, filepath.Join(root, p))
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		w.handle(fsnotify.Event{Name: names[i%len(names)], Op: fsnotify.Write})
		i++
	}
}
