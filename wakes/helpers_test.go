package wakes

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/rs/zerolog"
	"github.com/wakewheel/wakewheel/internal/clock"
	ob "github.com/wakewheel/wakewheel/obligations"
	"github.com/wakewheel/wakewheel/scheduler"
	"github.com/wakewheel/wakewheel/store"
)

// rig is a daemon in miniature: a store on disk, an engine and its runner
// on the real clock, and a Service wired as cmd/wakewheel wires it.
type rig struct {
	t      testing.TB
	dir    string
	pol    ob.Policies
	opts   Options
	db     *store.DB
	runner *scheduler.Runner
	svc    *Service
	wrap   func(Store) Store // optional: interpose on the store
}

func fastPolicies() ob.Policies {
	p := ob.DefaultPolicies()
	for c, pol := range p {
		pol.Cadence, pol.SLO = 80*time.Millisecond, 400*time.Millisecond
		pol.MaxBody = 1024
		p[c] = pol
	}
	return p
}

func newRig(t testing.TB, pol ob.Policies) *rig {
	t.Helper()
	r := &rig{t: t, dir: filepath.Join(t.TempDir(), "store"), pol: pol}
	r.opts = Options{Policies: pol, Clock: clock.Real{}, Logger: zerolog.Nop()}
	return r
}

// start opens the store, restores the service and starts the runner.
func (r *rig) start() *rig {
	r.t.Helper()
	db, err := store.Open(r.dir, store.Options{RawJournalSync: true}) // as the daemon opens it
	if err != nil {
		r.t.Fatal(err)
	}
	var st Store = db
	if r.wrap != nil {
		st = r.wrap(db)
	}
	svc, muts, err := Open(st, r.opts)
	if err != nil {
		db.Close()
		r.t.Fatal(err)
	}
	now := time.Now()
	eng, err := scheduler.NewEngine(db, scheduler.Options{Logger: zerolog.Nop()}, now)
	if err != nil {
		r.t.Fatal(err)
	}
	eng.Register(ob.RedeliverKind, svc.Handler())
	eng.Register(ob.CompactKind, svc.CompactHandler())
	if err := eng.ApplyAll(now, muts...); err != nil {
		r.t.Fatal(err)
	}
	r.db, r.svc = db, svc
	r.runner = scheduler.Start(eng, clock.Real{})
	svc.Attach(r.runner)
	return r
}

// stop shuts down in the daemon's order; crash drops the store's
// write-behind buffer as a killed process would.
func (r *rig) stop(crash bool) {
	r.svc.Close()
	r.runner.Stop()
	if crash {
		r.db.Abandon()
	} else {
		r.db.Close()
	}
}

func (r *rig) restart() {
	r.stop(true)
	r.start()
}

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func human(lane, id, body string) ob.Obligation {
	return ob.Obligation{Lane: lane, ID: id, Class: ob.ClassHuman, Body: body}
}

func peer(lane, id, body string) ob.Obligation {
	return ob.Obligation{Lane: lane, ID: id, Class: ob.ClassPeer, Body: body,
		Locator: ob.Locator{Repo: "wakewheel", Issue: "4"}}
}

// countRecords counts the records of ns.
func countRecords(t *testing.T, db Store, ns string) int {
	t.Helper()
	n := 0
	if err := db.Scan(ns, "", func(string, []byte) error { n++; return nil }); err != nil {
		t.Fatal(err)
	}
	return n
}

// waitFor polls cond until it holds or 5 s pass.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(2 * time.Millisecond)
	}
}
