package detectors

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
)

// A set computed ahead is the detection's when the caller's mark and
// since ref are the same (no event since it started); any other mark,
// since ref, a cancelled computation or mark 0 computes afresh.
func TestTrackerTakesTheSetComputedAheadOnlyAtItsMark(t *testing.T) {
	dir, head := trackerRepo(t, "a.go", "b.go")
	tr := NewTracker(dir, SkipPolicy{})
	tr.Probe()
	ctx := context.Background()
	writeFile(t, dir, "a.go", "v2\n")

	tr.Ahead(ctx, head, 7)
	res := detect(t, tr, Scan{SinceRef: head, Mark: 7}, true)
	if !res.Ahead || res.Head != head || !slices.Equal(res.Paths, []string{"a.go"}) {
		t.Fatalf("detection at the ahead mark: %+v; want a.go, computed ahead", res)
	}

	// An event came after it started: the caller's mark moved on.
	tr.Ahead(ctx, head, 8)
	writeFile(t, dir, "new.txt", "untracked\n")
	res = detect(t, tr, Scan{SinceRef: head, Mark: 9}, true)
	if res.Ahead || !slices.Equal(res.Paths, []string{"new.txt"}) {
		t.Fatalf("detection at a later mark: %+v; want new.txt, computed afresh", res)
	}

	cases := []struct {
		name  string
		ahead func()
		scan  Scan
	}{
		{"another since ref", func() { tr.Ahead(ctx, "", 10) }, Scan{SinceRef: head, Mark: 10}},
		{"cancelled", func() { tr.Ahead(ctx, head, 11); tr.Unahead() }, Scan{SinceRef: head, Mark: 11}},
		{"no mark", func() { tr.Ahead(ctx, head, 0) }, Scan{SinceRef: head}},
		{"taken once", func() {
			tr.Ahead(ctx, head, 12)
			if res := detect(t, tr, Scan{SinceRef: head, Mark: 12}, true); !res.Ahead {
				t.Fatalf("not taken at its mark: %+v", res)
			}
			writeFile(t, dir, "b.go", "changed again\n")
		}, Scan{SinceRef: head, Mark: 12}},
	}
	for _, c := range cases {
		writeFile(t, dir, "b.go", "changed for "+c.name+"\n")
		c.ahead()
		res := detect(t, tr, c.scan, true)
		if res.Ahead || !slices.Equal(res.Paths, []string{"b.go"}) {
			t.Fatalf("%s: %+v; want b.go, computed afresh", c.name, res)
		}
	}
}

// While .git/index.lock exists (a checkout is writing) nothing is
// computed ahead.
func TestNothingIsComputedAheadUnderTheIndexLock(t *testing.T) {
	dir, head := trackerRepo(t, "a.go")
	tr := NewTracker(dir, SkipPolicy{})
	tr.Probe()
	lock := filepath.Join(dir, ".git", "index.lock")
	if err := os.WriteFile(lock, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	tr.Ahead(context.Background(), head, 3)
	if err := os.Remove(lock); err != nil {
		t.Fatal(err)
	}
	writeFile(t, dir, "a.go", "v2\n")
	if res := detect(t, tr, Scan{SinceRef: head, Mark: 3}, true); res.Ahead || !slices.Equal(res.Paths, []string{"a.go"}) {
		t.Fatalf("%+v; want a.go, computed afresh", res)
	}
}

// Ahead and Unahead run beside the detection's goroutine (checked with
// -race); a detection always gets a correct set, ahead or not.
func TestAheadBesideDetections(t *testing.T) {
	dir, head := trackerRepo(t, "a.go")
	tr := NewTracker(dir, SkipPolicy{})
	tr.Probe()
	writeFile(t, dir, "a.go", "v2\n")
	var wg sync.WaitGroup
	for i := uint64(1); i <= 20; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tr.Ahead(context.Background(), head, i)
			if i%3 == 0 {
				tr.Unahead()
			}
		}()
		res := detect(t, tr, Scan{SinceRef: head, Mark: i}, false)
		if !slices.Equal(res.Paths, []string{"a.go"}) {
			t.Fatalf("detection %d: %+v", i, res)
		}
	}
	wg.Wait()
}
