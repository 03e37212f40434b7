package detectors

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// treeOf makes a root with n directories (the root and n-1 below it).
func treeOf(t *testing.T, n int) string {
	t.Helper()
	root := t.TempDir()
	for i := 1; i < n; i++ {
		if err := os.Mkdir(filepath.Join(root, fmt.Sprintf("d%d", i)), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// A budget of a few directories: a root that does not fit polls, with a
// clear reason, and evicts nobody; a root that fits keeps notify mode.
func TestBudgetTooSmallPollsWithAReason(t *testing.T) {
	b := NewBudget(3)
	small, sc := watch(t, WatchOptions{Root: treeOf(t, 2), Budget: b})
	big, _ := watch(t, WatchOptions{Root: treeOf(t, 5), Budget: b})
	st := big.Status()
	if st.Mode != ModePolling || st.Reason != ReasonBudget || !strings.Contains(st.Detail, "needs 5") {
		t.Fatalf("big root: %+v", st)
	}
	if small.Mode() != ModeNotify || b.InUse() != 2 {
		t.Fatalf("small root %+v, in use %d", small.Status(), b.InUse())
	}
	writeFile(t, small.Root(), "d1/f", "x")
	eventually(t, 5*time.Second, "small root still reports", func() bool { return sc.has("d1/f") })
}

// The least recently used root is evicted for a new one; it is re-armed
// by calling Watch again, which evicts the next least recently used.
func TestBudgetEvictsLeastRecentlyUsedAndRearms(t *testing.T) {
	b := NewBudget(10)
	rootA, rootB, rootC := treeOf(t, 4), treeOf(t, 4), treeOf(t, 4)
	a, ac := watch(t, WatchOptions{Root: rootA, Budget: b})
	bw, bc := watch(t, WatchOptions{Root: rootB, Budget: b})
	b.Touch(rootA) // A used after B
	c, _ := watch(t, WatchOptions{Root: rootC, Budget: b})
	if bw.Mode() != ModeEvicted || a.Mode() != ModeNotify || c.Mode() != ModeNotify {
		t.Fatalf("A %s, B %s, C %s; want B evicted", a.Mode(), bw.Mode(), c.Mode())
	}
	if st := bw.Status(); st.Reason != ReasonBudget || !strings.Contains(st.Detail, rootC) {
		t.Fatalf("evicted status %+v", st)
	}
	eventually(t, 5*time.Second, "evicted root told", func() bool { return slices.Equal(bc.fallbacks(), []string{ReasonBudget}) })
	if b.InUse() != 8 {
		t.Fatalf("in use %d, want 8", b.InUse())
	}

	// B's next use re-arms it; A is now the least recently used.
	b2, bc2 := watch(t, WatchOptions{Root: rootB, Budget: b})
	if b2.Mode() != ModeNotify || a.Mode() != ModeEvicted || c.Mode() != ModeNotify {
		t.Fatalf("after re-arm: A %s, B %s, C %s", a.Mode(), b2.Mode(), c.Mode())
	}
	eventually(t, 5*time.Second, "A told", func() bool { return len(ac.fallbacks()) == 1 })
	writeFile(t, rootB, "d1/f", "x")
	eventually(t, 5*time.Second, "re-armed root reports", func() bool { return bc2.has("d1/f") })
}

// Events count as use: a root with recent events outlives a quiet one.
func TestBudgetEventsCountAsUse(t *testing.T) {
	b := NewBudget(8)
	rootA, rootB := treeOf(t, 4), treeOf(t, 4)
	a, ac := watch(t, WatchOptions{Root: rootA, Budget: b})
	bw, _ := watch(t, WatchOptions{Root: rootB, Budget: b})
	writeFile(t, rootA, "d1/f", "x")
	eventually(t, 5*time.Second, "event on A", func() bool { return ac.has("d1/f") })
	watch(t, WatchOptions{Root: treeOf(t, 3), Budget: b})
	if a.Mode() != ModeNotify || bw.Mode() != ModeEvicted {
		t.Fatalf("A %s, B %s; want B evicted", a.Mode(), bw.Mode())
	}
}

// A root that grows past the budget at run time polls if nothing can be
// evicted for it.
func TestBudgetGrowthPastTheBudget(t *testing.T) {
	b := NewBudget(4)
	w, c := watch(t, WatchOptions{Root: treeOf(t, 3), Budget: b})
	writeFile(t, w.Root(), "n1/n2/n3/f", "x")
	eventually(t, 5*time.Second, "budget fallback", func() bool { return w.Mode() == ModePolling })
	if st := w.Status(); st.Reason != ReasonBudget {
		t.Fatalf("status %+v", st)
	}
	eventually(t, 5*time.Second, "OnFallback", func() bool { return len(c.fallbacks()) == 1 })
	if b.InUse() != 0 {
		t.Fatalf("in use %d after the only root left", b.InUse())
	}
}

func TestBudgetAccounting(t *testing.T) {
	b := NewBudget(100)
	root := treeOf(t, 3)
	w, c := watch(t, WatchOptions{Root: root, Budget: b})
	if b.InUse() != 3 {
		t.Fatalf("in use %d", b.InUse())
	}
	if _, err := Watch(WatchOptions{Root: root, Budget: b}); !errors.Is(err, ErrAlreadyWatched) {
		t.Fatalf("second Watch: %v", err)
	}
	writeFile(t, root, "x/y/f", "x")
	eventually(t, 5*time.Second, "growth charged", func() bool { return b.InUse() == 5 && c.has("x/y/f") })
	if err := os.RemoveAll(filepath.Join(root, "x")); err != nil {
		t.Fatal(err)
	}
	eventually(t, 5*time.Second, "removal released", func() bool { return b.InUse() == 3 })
	_ = w.Close()
	if b.InUse() != 0 {
		t.Fatalf("in use %d after Close", b.InUse())
	}
	b.Touch("/no/such/root") // ignored
}

// Roots re-armed, touched, grown and closed concurrently under a small
// budget: no deadlock, the budget never over-committed, nothing leaked.
func TestBudgetChurn(t *testing.T) {
	b := NewBudget(12)
	roots := make([]string, 6)
	for i := range roots {
		roots[i] = treeOf(t, 3)
	}
	deadline := time.Now().Add(time.Second)
	done := make(chan error, len(roots))
	for i, root := range roots {
		go func() {
			var w *Watcher
			for n := 0; time.Now().Before(deadline); n++ {
				if w == nil || w.Mode() != ModeNotify {
					if w != nil {
						_ = w.Close()
					}
					var err error
					if w, err = Watch(WatchOptions{Root: root, Budget: b, OnEvent: func(string) {}}); err != nil {
						done <- err
						return
					}
				}
				b.Touch(root)
				dir := filepath.Join(root, fmt.Sprintf("g%d", n%3))
				if n%2 == 0 {
					_ = os.MkdirAll(filepath.Join(dir, "x"), 0o755)
				} else {
					_ = os.RemoveAll(dir)
				}
				if used := b.InUse(); used > b.Max() {
					done <- fmt.Errorf("root %d: budget over-committed: %d > %d", i, used, b.Max())
					return
				}
				time.Sleep(time.Millisecond)
			}
			done <- w.Close()
		}()
	}
	for range roots {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
	if b.InUse() != 0 {
		t.Fatalf("%d directories still charged after every watcher closed", b.InUse())
	}
}
