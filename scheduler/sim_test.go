package scheduler_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/datadriven"
	"github.com/rs/zerolog"
	"github.com/syndtr/goleveldb/leveldb/storage"
	"github.com/wakewheel/wakewheel/deadlines"
	"github.com/wakewheel/wakewheel/scheduler"
	"github.com/wakewheel/wakewheel/store"
)

// epoch is the simulations' time zero; times print as offsets from it.
var epoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// sim drives an Engine over a real store on a memory filesystem, under a
// clock that moves only when the script says so.
type sim struct {
	t        *testing.T
	mem      storage.Storage
	db       *store.DB
	eng      *scheduler.Engine
	now      time.Time
	scripts  map[string][]string // kind -> remaining outcomes; the last one repeats
	out      strings.Builder
	stopped  bool
	tick     time.Duration
	attempts int
}

func newSim(t *testing.T) *sim {
	s := &sim{t: t, mem: storage.NewMemStorage(), now: epoch, scripts: map[string][]string{}, tick: time.Millisecond}
	s.open()
	return s
}

func (s *sim) open() {
	db, err := store.OpenStorage(s.mem, store.Options{})
	if err != nil {
		s.t.Fatalf("open store: %v", err)
	}
	eng, err := scheduler.NewEngine(db, scheduler.Options{Tick: s.tick, RetryBase: time.Second, RetryCap: 8 * time.Second, RetryAttempts: 3, Logger: zerolog.Nop()}, s.now)
	if err != nil {
		s.t.Fatalf("new engine: %v", err)
	}
	s.db, s.eng = db, eng
	for kind := range s.scripts {
		s.register(kind)
	}
}

func (s *sim) register(kind string) {
	s.eng.Register(kind, func(ctx context.Context, f scheduler.Firing) scheduler.Outcome {
		outs := s.scripts[kind]
		o := outs[0]
		if len(outs) > 1 {
			s.scripts[kind] = outs[1:]
		}
		name, arg, _ := strings.Cut(o, ":")
		switch name {
		case "done":
			return scheduler.Succeeded()
		case "retry":
			return scheduler.RetryLater(errors.New("transient"))
		case "yield":
			d, _ := time.ParseDuration(arg)
			return scheduler.YieldFor(d)
		case "conflict":
			return scheduler.Conflicted(errors.New("store version moved"), arg)
		case "fail":
			return scheduler.Failed(errors.New("broken"))
		case "panic":
			panic("handler bug")
		}
		s.t.Fatalf("unknown outcome %q", o)
		return scheduler.Outcome{}
	})
}

func rel(t time.Time) string { return t.Sub(epoch).String() }

// advance steps through every due time up to target, running each job.
func (s *sim) advance(target time.Time) {
	for {
		next, ok := s.eng.Next()
		if !ok || next.After(target) {
			break
		}
		s.now = maxTime(s.now, next)
		s.runDue()
	}
	s.now = maxTime(s.now, target)
	s.runDue()
}

// runDue runs what is due, as the runner's turns do: each moves what the
// queue has room for, then hands out one job.
func (s *sim) runDue() {
	for {
		s.eng.Due(s.now)
		job, ok := s.eng.NextJob(s.now)
		if !ok {
			return
		}
		out := s.eng.Run(context.Background(), job)
		fmt.Fprintf(&s.out, "fired %s at %s (due %s) attempt %d: %s\n",
			job.Deadline.Key, rel(s.now), rel(job.Deadline.At), job.Attempt, out.Result)
		s.eng.Finish(s.now, job, out)
	}
}

func maxTime(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

func (s *sim) apply(m deadlines.Mutation) {
	a, err := s.eng.Apply(s.now, m)
	switch {
	case err != nil:
		fmt.Fprintf(&s.out, "error: %v\n", err)
	case a.Pending:
		fmt.Fprintf(&s.out, "%s at %s (changed=%t)\n", m.Key, rel(a.At), a.Changed)
	default:
		fmt.Fprintf(&s.out, "%s cancelled=%t\n", m.Key, a.Changed)
	}
}

func TestSimulations(t *testing.T) {
	datadriven.Walk(t, "testdata/sim", func(t *testing.T, path string) {
		s := newSim(t)
		defer func() {
			if s.db != nil {
				s.db.Close()
			}
		}()
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			s.t = t
			s.out.Reset()
			s.run(d)
			return s.out.String()
		})
	})
}

func (s *sim) run(d *datadriven.TestData) {
	arg := func(name string) string {
		var v string
		if d.HasArg(name) {
			d.ScanArgs(s.t, name, &v)
		}
		return v
	}
	dur := func(name string) time.Duration {
		v, err := time.ParseDuration(arg(name))
		if err != nil {
			d.Fatalf(s.t, "%s: %v", name, err)
		}
		return v
	}
	switch d.Cmd {
	case "handler":
		kind := arg("kind")
		s.scripts[kind] = strings.Split(arg("outcomes"), ",")
		s.register(kind)
	case "push", "reset":
		op := deadlines.OpPush
		if d.Cmd == "reset" {
			op = deadlines.OpReset
		}
		s.apply(deadlines.Mutation{Op: op, Key: arg("key"), Kind: arg("kind"), At: epoch.Add(dur("at"))})
	case "extend":
		s.apply(deadlines.Mutation{Op: deadlines.OpExtend, Key: arg("key"), Kind: arg("kind"), Window: dur("window"), Cap: dur("cap")})
	case "churn":
		// An event every `every` for `for`: each one extends the key.
		end := s.now.Add(dur("for"))
		n := 0
		for !s.now.After(end) {
			if _, err := s.eng.Apply(s.now, deadlines.Mutation{Op: deadlines.OpExtend, Key: arg("key"), Kind: arg("kind"), Window: dur("window"), Cap: dur("cap")}); err != nil {
				d.Fatalf(s.t, "extend: %v", err)
			}
			n++
			s.advance(s.now.Add(dur("every")))
		}
		fmt.Fprintf(&s.out, "%d events, now %s\n", n, rel(s.now))
	case "cancel":
		s.apply(deadlines.Mutation{Op: deadlines.OpCancel, Key: arg("key")})
	case "advance":
		step, err := time.ParseDuration(d.CmdArgs[0].Key)
		if err != nil {
			d.Fatalf(s.t, "advance: %v", err)
		}
		s.advance(s.now.Add(step))
		fmt.Fprintf(&s.out, "now %s\n", rel(s.now))
	case "flush":
		if err := s.db.Flush(); err != nil {
			d.Fatalf(s.t, "flush: %v", err)
		}
	case "sync":
		if err := s.db.Sync(); err != nil {
			d.Fatalf(s.t, "sync: %v", err)
		}
	case "begin":
		// Move to the next due time, hand out its job and leave it running
		// (for "crash").
		for {
			s.eng.Due(s.now)
			if job, ok := s.eng.NextJob(s.now); ok {
				fmt.Fprintf(&s.out, "running %s at %s\n", job.Deadline.Key, rel(s.now))
				break
			}
			next, ok := s.eng.Next()
			if !ok {
				break
			}
			s.now = maxTime(s.now, next)
		}
	case "crash":
		// The process dies: unflushed write-behind is lost, nothing else.
		if err := s.db.Abandon(); err != nil {
			d.Fatalf(s.t, "abandon: %v", err)
		}
		s.db, s.eng = nil, nil
	case "restart":
		if d.HasArg("downtime") {
			s.now = s.now.Add(dur("downtime"))
		}
		s.open()
		fmt.Fprintf(&s.out, "reloaded %d at %s\n", s.eng.Stats().Reloaded, rel(s.now))
	case "pending":
		for _, p := range s.eng.Pending() {
			fmt.Fprintf(&s.out, "%s %s at %s\n", p.Key, p.Kind, rel(p.At))
		}
	case "alerts":
		alerts, err := s.db.Alerts(100)
		if err != nil {
			d.Fatalf(s.t, "alerts: %v", err)
		}
		for _, a := range alerts {
			fmt.Fprintf(&s.out, "%s %s: %s\n", a.Code, a.Key, a.Message)
		}
	default:
		d.Fatalf(s.t, "unknown command %q", d.Cmd)
	}
}
