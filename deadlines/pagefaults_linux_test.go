//go:build linux && !race

package deadlines

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"runtime/debug"
	"syscall"
	"testing"
	"unsafe"
)

// faultChildEnv marks the child process of TestNewEntriesFaultEachPageOnce.
const faultChildEnv = "DEADLINES_TEST_FAULT_CHILD"

// New entries fault the memory of their slab pages in once each. The
// first touch of a page never used must be a write: a read (such as the
// nil check before a copy into an entry) maps the kernel's zero page, and
// the write after it faults a second time and flushes every other
// processor's TLB, which cost a 1M reload over 100 ms of CPU (BENCHMARKS.md).
// The entries are made in a child process of its own, so that its heap is
// new memory, not pages an earlier test left mapped. Keys of 20 bytes take
// setKey's copy, keys of 12 its two stores. Not under the race detector:
// its shadow memory changes which access faults a page in first, so the
// count says nothing there (make test runs this file without it).
func TestNewEntriesFaultEachPageOnce(t *testing.T) {
	const n = 1 << 17 // 8 MiB of entries: 2,048 pages of 4 KiB
	if os.Getenv(faultChildEnv) == "" {
		cmd := exec.Command(os.Args[0], "-test.run=^TestNewEntriesFaultEachPageOnce$", "-test.v")
		cmd.Env = append(os.Environ(), faultChildEnv+"=1")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("child: %v\n%s", err, out)
		}
		if bytes.Contains(out, []byte("--- SKIP")) {
			t.Skipf("child skipped:\n%s", out)
		}
		t.Logf("child:\n%s", out)
		return
	}
	debug.SetGCPercent(-1) // no collection hands freed pages back meanwhile
	pages := n * int(unsafe.Sizeof(entry{})) / os.Getpagesize()
	// the baseline: as many new pages, each entry's line written first
	base := minorFaults(t)
	var raw []*[pageSize]entry
	for range n / pageSize {
		p := new([pageSize]entry)
		for j := range p {
			p[j].keyLen = 1
		}
		raw = append(raw, p)
	}
	base = minorFaults(t) - base
	if base < pages/2 {
		t.Skipf("writing %d new pages took %d minor faults: the kernel maps huge pages here (transparent_hugepage \"always\"), so a page's faults cannot be counted", pages, base)
	}
	for _, width := range []int{20, 12} {
		keys := make([]string, n)
		for i := range keys {
			keys[i] = fmt.Sprintf("%0*d", width, i)
		}
		s := slab{free: nilIdx}
		before := minorFaults(t)
		for _, k := range keys {
			s.setKey(s.at(s.alloc()), k)
		}
		faults := minorFaults(t) - before
		t.Logf("%d entries (%d pages) with %d-byte keys: %d minor faults; the same pages written directly: %d", n, pages, width, faults, base)
		// a read first would make it two a page
		if limit := base * 5 / 4; faults > limit {
			t.Errorf("%d-byte keys: %d minor faults making %d entries, want at most %d (1.25× the %d of writing as many new pages: each page faulted in once, by a write)",
				width, faults, n, limit, base)
		}
		if s.live != n {
			t.Fatalf("%d entries live, want %d", s.live, n)
		}
	}
	runtime.KeepAlive(raw)
}

func minorFaults(t *testing.T) int {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		t.Fatal(err)
	}
	return int(ru.Minflt)
}
