package obligations_test

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/datadriven"
	"github.com/wakewheel/wakewheel/deadlines"
	ob "github.com/wakewheel/wakewheel/obligations"
)

// TestScripts runs the simulation scripts in testdata/ under a fake clock.
// Regenerate expected output with: go test ./obligations -run TestScripts -rewrite
//
// Commands:
//
//	post lane=L class=C id=ID [body=WORD | body=(several words)] [repo= issue= sha= file=] [key=K] [canary]
//	     (a body may also be given as the command's input, before ----)
//	open lane=L
//	close lane=L [force]      remove the lane (refused while it holds unconsumed work, unless force)
//	max-lanes N               cap the number of lanes (State.SetMaxLanes)
//	advance DURATION          step the wheel to every due deadline up to now+DURATION
//	deliver lane=L [who=W]    the consumer reads its digest (RECEIVED := head)
//	ack lane=L upto=N [action=A]
//	digest lane=L [who=W] [json]
//	park lane=L               checkpoint kept by the script for resume
//	resume lane=L [who=W]
//	restart [lose-deadlines]  encode every persisted record, Restore a fresh State
//	inject key=K after=D      push a deadline directly (a stale one the runner kept)
//	deadlines                 the wheel's pending deadlines
//	status                    every lane's cursors
//	ledger                    the safety-vector report of the ledger so far
//	week seed=N days=D        a whole simulated week (see TestWeekSimulation): its checks and summary
func TestScripts(t *testing.T) {
	datadriven.Walk(t, "testdata", func(t *testing.T, path string) {
		s := &script{h: newHarness(t, time.Date(2026, 1, 5, 0, 0, 0, 0, time.UTC)), parked: map[string]ob.Checkpoint{}}
		datadriven.RunTest(t, path, s.run)
	})
}

type script struct {
	h      *harness
	parked map[string]ob.Checkpoint
}

func (s *script) run(t *testing.T, td *datadriven.TestData) string {
	h := s.h
	h.t = t
	var b strings.Builder
	arg := func(key string) string {
		a, ok := td.Arg(key)
		if !ok {
			return ""
		}
		return strings.Join(a.Vals, ", ")
	}
	fail := func(err error) string { return "error: " + err.Error() + "\n" }

	switch td.Cmd {
	case "post":
		o := ob.Obligation{
			Lane: arg("lane"), ID: arg("id"), Class: ob.Class(arg("class")), Body: arg("body"), Key: arg("key"),
			Locator: ob.Locator{Repo: arg("repo"), Issue: arg("issue"), SHA: arg("sha"), File: arg("file")},
			Canary:  td.HasArg("canary"),
		}
		if !td.HasArg("body") {
			o.Body = td.Input
		}
		got, eff, err := h.st.Post(o, h.now)
		if err != nil {
			return fail(err)
		}
		if got.Duplicate {
			fmt.Fprintf(&b, "duplicate of %s#%d (posted %s), no effects\n", got.Lane, got.Seq, h.clock(got.Posted))
			return b.String()
		}
		fmt.Fprintf(&b, "posted %s#%d %s id=%s\n", got.Lane, got.Seq, got.Class, got.ID)
		h.apply(eff)
		h.describe(&b, eff)

	case "open":
		eff, err := h.st.Open(arg("lane"), h.now)
		if err != nil {
			return fail(err)
		}
		fmt.Fprintf(&b, "opened %s\n", arg("lane"))
		h.apply(eff)
		h.describe(&b, eff)

	case "close":
		eff, err := h.st.Close(arg("lane"), td.HasArg("force"), h.now)
		if err != nil {
			return fail(err)
		}
		fmt.Fprintf(&b, "closed %s\n", arg("lane"))
		h.apply(eff)
		h.describe(&b, eff)
		for _, e := range eff.Ledger {
			fmt.Fprintf(&b, "  ledger: %s %s seq=%d %s\n", e.Kind, e.Lane, e.Seq, e.Action)
		}

	case "max-lanes":
		n, err := strconv.Atoi(td.CmdArgs[0].Key)
		if err != nil {
			t.Fatalf("%s: max-lanes N: %v", td.Pos, err)
		}
		h.st.SetMaxLanes(n)
		fmt.Fprintf(&b, "at most %d lanes\n", h.st.MaxLanes())

	case "advance":
		if len(td.CmdArgs) != 1 {
			t.Fatalf("%s: advance takes one duration", td.Pos)
		}
		d, err := time.ParseDuration(td.CmdArgs[0].Key)
		if err != nil {
			t.Fatalf("%s: %v", td.Pos, err)
		}
		h.advance(h.now.Add(d), func(dl deadlines.Deadline, eff ob.Effects) {
			if len(eff.Wakes) == 0 {
				fmt.Fprintf(&b, "%s fire %s: dropped, nothing unconsumed\n", h.clock(h.now), dl.Key)
				return
			}
			fmt.Fprintf(&b, "%s fire %s\n", h.clock(h.now), dl.Key)
			h.describe(&b, eff)
		})
		fmt.Fprintf(&b, "now %s\n", h.clock(h.now))

	case "deliver", "resume":
		var (
			d   ob.Digest
			eff ob.Effects
			err error
		)
		if td.Cmd == "deliver" {
			d, eff, err = h.st.Deliver(arg("lane"), arg("who"), h.now)
		} else {
			cp, ok := s.parked[arg("lane")]
			if !ok {
				t.Fatalf("%s: lane %s was not parked", td.Pos, arg("lane"))
			}
			d, eff, err = h.st.Resume(cp, arg("who"), h.now)
		}
		if err != nil {
			return fail(err)
		}
		switch {
		case d.Noop:
			b.WriteString("nothing unconsumed\n")
		case d.Redelivery:
			fmt.Fprintf(&b, "%s already delivered, nothing recorded\n", d.WakeID)
		default:
			fmt.Fprintf(&b, "delivered %s, received %d\n", d.WakeID, d.Received)
		}
		h.apply(eff)
		h.describe(&b, eff)
		b.WriteString(d.Text())

	case "ack":
		upto, err := strconv.ParseUint(arg("upto"), 10, 64)
		if err != nil {
			t.Fatalf("%s: upto: %v", td.Pos, err)
		}
		before, _ := h.st.Lane(arg("lane"))
		eff, err := h.st.Ack(arg("lane"), upto, arg("action"), h.now)
		if err != nil {
			return fail(err)
		}
		if eff.Empty() {
			fmt.Fprintf(&b, "no-op: consumed is already %d\n", before.Consumed)
			return b.String()
		}
		after, _ := h.st.Lane(arg("lane"))
		fmt.Fprintf(&b, "consumed %s %d -> %d\n", arg("lane"), before.Consumed, after.Consumed)
		h.apply(eff)
		h.describe(&b, eff)

	case "digest":
		d, err := h.st.Digest(arg("lane"), arg("who"), h.now)
		if err != nil {
			return fail(err)
		}
		if td.HasArg("json") {
			js, err := json.MarshalIndent(d, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			return string(js) + "\n"
		}
		b.WriteString(d.Text())

	case "park":
		cp, eff, err := h.st.Park(arg("lane"), h.now)
		if err != nil {
			return fail(err)
		}
		s.parked[cp.Lane] = cp
		fmt.Fprintf(&b, "parked %s: consumed %d, head %d, at %s\n", cp.Lane, cp.Consumed, cp.Head, h.clock(cp.At))
		h.apply(eff)
		h.describe(&b, eff)

	case "restart":
		n, eff := h.restart(td.HasArg("lose-deadlines"))
		fmt.Fprintf(&b, "restored %d records, lanes: %d\n", n, len(h.st.Lanes()))
		h.describe(&b, eff)

	case "inject":
		d, err := time.ParseDuration(arg("after"))
		if err != nil {
			t.Fatalf("%s: %v", td.Pos, err)
		}
		h.wheel.Push(arg("key"), ob.RedeliverKind, h.now.Add(d), nil)
		fmt.Fprintf(&b, "pushed %s at %s\n", arg("key"), h.clock(h.now.Add(d)))

	case "deadlines":
		for _, d := range h.pending() {
			fmt.Fprintf(&b, "%s %s\n", h.clock(d.At), d.Key)
		}
		if b.Len() == 0 {
			b.WriteString("none\n")
		}

	case "status":
		for _, st := range h.st.Lanes() {
			fmt.Fprintf(&b, "%s: head %d, received %d, consumed %d, unconsumed %d (h%d p%d d%d a%d)\n",
				st.Lane, st.Head, st.Received, st.Consumed, st.Counts.Total(),
				st.Counts.Human, st.Counts.Peer, st.Counts.Digest, st.Counts.Alert)
		}

	case "week":
		var seed uint64
		var days int
		td.ScanArgs(t, "seed", &seed)
		td.ScanArgs(t, "days", &days)
		w := newWeek(t, seed)
		w.run(time.Duration(days) * 24 * time.Hour)
		w.check()
		return w.summary()

	case "ledger":
		b.WriteString(ob.ComputeReport(h.ledger, ob.DefaultSLOs(h.pol)).String())

	default:
		t.Fatalf("%s: unknown command %q", td.Pos, td.Cmd)
	}
	return b.String()
}
