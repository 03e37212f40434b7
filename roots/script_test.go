package roots

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cockroachdb/datadriven"
)

// TestScript replays testdata/sim: one git root with Go handlers whose
// outcomes the script sets, a real engine and store under the fake clock.
// Commands:
//
//	watch [budget=N]            register and arm the root, first detection
//	write PATH...               change files of the root (waits for the
//	                            watcher's burst)
//	detect                      a detection due now (as traffic would)
//	advance D                   move the clock by D, running what falls due
//	ingest OUT...               the next ingest runs' outcomes (ok, fail);
//	reconcile OUT...            and the reconciles' (ok, conflict, fail);
//	                            the last one repeats
//	lease acquire ttl=D | lease release   a lease named after the root
//	state                       backlog, pending deadlines, alerts, runs
//
// Every command prints the firings it caused, "+offset key outcome", keys
// with the root's path written R. Regenerate with -rewrite.
func TestScript(t *testing.T) {
	datadriven.RunTest(t, "testdata/sim", func(t *testing.T, d *datadriven.TestData) string {
		return scriptOf(t).run(t, d)
	})
}

type script struct {
	s    *sim
	root string
	seen int // trace lines printed

	mu        sync.Mutex
	ingests   []string // outcomes to come
	reconc    []string
	batches   [][]string
	versions  []uint64
	reconRuns []string
}

var scripts sync.Map // *testing.T of the file -> *script

func scriptOf(t *testing.T) *script {
	// datadriven calls back with a subtest per directive; the script lives
	// as long as its parent test.
	key := strings.SplitN(t.Name(), "/", 2)[0]
	if v, ok := scripts.Load(key); ok {
		return v.(*script)
	}
	sc := &script{s: newSim(t, Options{}), ingests: []string{"ok"}, reconc: []string{"ok"}}
	scripts.Store(key, sc)
	t.Cleanup(func() { scripts.Delete(key) })
	return sc
}

func next(outs *[]string) string {
	o := (*outs)[0]
	if len(*outs) > 1 {
		*outs = (*outs)[1:]
	}
	return o
}

func (sc *script) ingest(_ context.Context, b Batch) error {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	if next(&sc.ingests) == "fail" {
		return errors.New("indexer is down")
	}
	sc.batches = append(sc.batches, slices.Clone(b.Paths))
	return nil
}

func (sc *script) reconcile(_ context.Context, r ReconcileRun) error {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	o := next(&sc.reconc)
	sc.versions = append(sc.versions, r.StoreVersion)
	sc.reconRuns = append(sc.reconRuns, fmt.Sprintf("%s v%d %s", offset(sc.s.clk.Now()), r.StoreVersion, o))
	switch o {
	case "conflict":
		return fmt.Errorf("store moved: %w", ErrConflict)
	case "fail":
		return errors.New("reconciler crashed")
	}
	return nil
}

func (sc *script) run(t *testing.T, d *datadriven.TestData) string {
	s := sc.s
	s.t = t
	ctx := context.Background()
	var out strings.Builder
	switch d.Cmd {
	case "watch":
		spec := Spec{}
		if d.HasArg("budget") {
			var n int
			d.ScanArgs(t, "budget", &n)
			spec.Windows = &Windows{DrainBudget: n}
		}
		sc.root = newRepo(t, "a.go")
		s.watchRoot(sc.root, Handlers{Ingest: sc.ingest, Reconcile: sc.reconcile}, spec)
	case "write":
		for _, a := range d.CmdArgs {
			writeFile(t, sc.root, a.Key, "changed at "+offset(s.clk.Now()))
		}
		// The watcher's events reach the engine in real time: wait for the
		// burst, and a moment for stragglers (they extend it at the same
		// fake time, so the script does not depend on how many come).
		s.waitEvents(sc.root)
		time.Sleep(50 * time.Millisecond)
	case "detect":
		s.detect(sc.root)
	case "advance":
		dur, err := time.ParseDuration(d.CmdArgs[0].Key)
		if err != nil {
			t.Fatal(err)
		}
		s.advance(dur)
	case "ingest", "reconcile":
		var outs []string
		for _, a := range d.CmdArgs {
			outs = append(outs, a.Key)
		}
		sc.mu.Lock()
		if d.Cmd == "ingest" {
			sc.ingests = outs
		} else {
			sc.reconc = outs
		}
		sc.mu.Unlock()
	case "lease":
		switch d.CmdArgs[0].Key {
		case "acquire":
			var ttl string
			d.ScanArgs(t, "ttl", &ttl)
			dur, err := time.ParseDuration(ttl)
			if err != nil {
				t.Fatal(err)
			}
			l, err := s.m.AcquireLease(ctx, sc.root, dur)
			if err != nil {
				return "error: " + err.Error() + "\n"
			}
			fmt.Fprintf(&out, "lease held until %s\n", offset(l.Expires))
		case "release":
			ok, err := s.m.ReleaseLease(ctx, sc.root)
			fmt.Fprintf(&out, "released %v %v\n", ok, err)
		}
		s.advance(0)
	case "state":
		sc.state(&out)
	default:
		t.Fatalf("unknown command %q", d.Cmd)
	}
	for _, l := range s.trace[sc.seen:] {
		out.WriteString(sc.name(l) + "\n")
	}
	sc.seen = len(s.trace)
	return out.String()
}

// name writes the root's path as R.
func (sc *script) name(s string) string { return strings.ReplaceAll(s, sc.root, "/R") }

func (sc *script) state(out *strings.Builder) {
	s := sc.s
	st := s.status(sc.root)
	fmt.Fprintf(out, "backlog %d, ingested %d in %d batches\n", st.Backlog, st.Ingested, st.Batches)
	s.mu.Lock()
	pend := s.eng.Pending()
	s.mu.Unlock()
	for _, p := range pend {
		if strings.Contains(p.Key, sc.root) {
			fmt.Fprintf(out, "pending %s at %s\n", sc.name(p.Key), offset(p.At))
		}
	}
	for _, a := range s.alerts() {
		fmt.Fprintf(out, "alert %s %s\n", a.Code, sc.name(a.Key))
	}
	sc.mu.Lock()
	for _, r := range sc.reconRuns {
		fmt.Fprintf(out, "reconcile ran %s\n", r)
	}
	sc.reconRuns = nil
	sc.mu.Unlock()
	if st.LastReconcileResult != "" {
		fmt.Fprintf(out, "last reconcile: %s\n", sc.name(st.LastReconcileResult))
	}
}
