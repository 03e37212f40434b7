package detectors

import (
	"bytes"
	"fmt"
	"github.com/wakewheel/wakewheel/internal/gitenv"
	"github.com/wakewheel/wakewheel/internal/testgit"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"
)

// longTests reports whether the long variants run (WAKEWHEEL_LONG=1).
func longTests() bool { return os.Getenv("WAKEWHEEL_LONG") == "1" }

// git runs git in dir for a test (see internal/testgit) and returns its
// stdout.
func git(tb testing.TB, dir string, args ...string) []byte {
	tb.Helper()
	return testgit.Run(tb, dir, args...)
}

// splitNUL splits -z output into names.
func splitNUL(b []byte) []string { return appendNULSeparated(nil, b) }

// sortedUnique sorts and de-duplicates a copy of s.
func sortedUnique(s []string) []string {
	out := slices.Clone(s)
	slices.Sort(out)
	return slices.Compact(out)
}

// diffSets returns what is in want and not got, and in got and not want.
func diffSets(want, got []string) (missing, extra []string) {
	w := make(map[string]bool, len(want))
	for _, p := range want {
		w[p] = true
	}
	g := make(map[string]bool, len(got))
	for _, p := range got {
		g[p] = true
		if !w[p] {
			extra = append(extra, p)
		}
	}
	for _, p := range want {
		if !g[p] {
			missing = append(missing, p)
		}
	}
	return missing, extra
}

func writeFile(tb testing.TB, root, rel, content string) {
	tb.Helper()
	p := filepath.Join(root, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		tb.Fatal(err)
	}
}

// genTree writes n files, 100 per directory, under dirs dNNN/eNN, and
// returns their paths.
func genTree(tb testing.TB, root string, n int, content string) []string {
	tb.Helper()
	paths := treePaths(n)
	for i, p := range paths {
		if i%100 == 0 {
			if err := os.MkdirAll(filepath.Join(root, filepath.Dir(p)), 0o755); err != nil {
				tb.Fatal(err)
			}
		}
		if err := os.WriteFile(filepath.Join(root, p), []byte(content+p+"\n"), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	return paths
}

// genRepo makes a git repository of n committed files on branch main and
// returns their paths.
func genRepo(tb testing.TB, root string, n int) []string {
	tb.Helper()
	git(tb, root, "init", "-q")
	paths := genTree(tb, root, n, "v1 ")
	git(tb, root, "add", "-A")
	git(tb, root, "commit", "-q", "--no-verify", "-m", "A")
	return paths
}

// importCommit is one commit for importRepo: files are written over its
// parent's tree (from, a ref or "").
type importCommit struct {
	ref, msg, from string
	paths          []string
	content        func(path string) string
}

// importRepo creates a repository at root from commits with one
// `git fast-import` (a pack, not thousands of loose objects: much faster
// than git add on a slow disk), then checks out main into the work tree.
func importRepo(tb testing.TB, root string, commits ...importCommit) {
	tb.Helper()
	git(tb, root, "init", "-q")
	var b bytes.Buffer
	for i, c := range commits {
		fmt.Fprintf(&b, "commit refs/heads/%s\ncommitter t <t@t> %d +0000\ndata %d\n%s\n", c.ref, 1700000000+i, len(c.msg), c.msg)
		if c.from != "" {
			fmt.Fprintf(&b, "from refs/heads/%s\n", c.from)
		}
		for _, p := range c.paths {
			data := c.content(p)
			fmt.Fprintf(&b, "M 100644 inline %s\ndata %d\n%s\n", p, len(data), data)
		}
	}
	cmd := exec.Command("git", "-C", root, "fast-import", "--quiet")
	cmd.Env = gitenv.Env()
	cmd.Stdin = &b
	if out, err := cmd.CombinedOutput(); err != nil {
		tb.Fatalf("fast-import: %v: %s", err, out)
	}
	git(tb, root, "reset", "-q", "--hard", "main")
}

// treePaths names n files, 100 per directory, under dNNN/eNN.
func treePaths(n int) []string {
	paths := make([]string, n)
	for i := range paths {
		paths[i] = fmt.Sprintf("d%03d/e%02d/f%05d.txt", i/1000, (i/100)%10, i)
	}
	return paths
}

func headOf(tb testing.TB, dir string) string {
	tb.Helper()
	return string(bytes.TrimSpace(git(tb, dir, "rev-parse", "HEAD")))
}

// collector records what a watcher reports.
type collector struct {
	mu    sync.Mutex
	seen  map[string]int
	n     int
	falls []string
}

func newCollector() *collector { return &collector{seen: make(map[string]int)} }

func (c *collector) onEvent(rel string) {
	c.mu.Lock()
	c.seen[rel]++
	c.n++
	c.mu.Unlock()
}

func (c *collector) onFallback(reason string) {
	c.mu.Lock()
	c.falls = append(c.falls, reason)
	c.mu.Unlock()
}

func (c *collector) count() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n
}

func (c *collector) has(rel string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.seen[rel] > 0
}

func (c *collector) paths() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]string, 0, len(c.seen))
	for p := range c.seen {
		out = append(out, p)
	}
	slices.Sort(out)
	return out
}

func (c *collector) fallbacks() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.falls)
}

// missingFrom returns the paths of want that c has not seen.
func (c *collector) missingFrom(want []string) []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []string
	for _, p := range want {
		if c.seen[p] == 0 {
			out = append(out, p)
		}
	}
	return out
}

// watch starts a watcher on root reporting to a new collector.
func watch(tb testing.TB, opts WatchOptions) (*Watcher, *collector) {
	tb.Helper()
	c := newCollector()
	opts.OnEvent = c.onEvent
	opts.OnFallback = c.onFallback
	w, err := Watch(opts)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = w.Close() })
	return w, c
}

// eventually polls cond every 10ms until it holds or d passes.
func eventually(tb testing.TB, d time.Duration, what string, cond func() bool) {
	tb.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			tb.Fatalf("timed out after %v waiting for %s", d, what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// settle waits until c has seen no new event for quiet, at most d.
func settle(tb testing.TB, c *collector, quiet, d time.Duration) {
	tb.Helper()
	deadline := time.Now().Add(d)
	last, since := c.count(), time.Now()
	for time.Since(since) < quiet {
		if time.Now().After(deadline) {
			tb.Fatalf("events still flowing after %v", d)
		}
		time.Sleep(20 * time.Millisecond)
		if n := c.count(); n != last {
			last, since = n, time.Now()
		}
	}
}
