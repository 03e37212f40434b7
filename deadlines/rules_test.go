package deadlines

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/datadriven"
)

// TestRuleScripts runs testdata/rules_*.txt: the mutation vocabulary, its
// validation and the re-timing rule, under a script clock that starts at
// scriptT0 (times in the scripts are offsets from it). Regenerate the expected
// output with: go test ./deadlines -run TestRuleScripts -rewrite
//
// Commands:
//
//	apply op=push|extend|reset|cancel key=K [kind=K] [at=D] [since=D] [window=D] [cap=D] [payload=S]
//	                          apply a mutation to the script's wheel at now
//	advance D                 move now by D and fire what fell due
//	pending                   the wheel's pending deadlines, in due order
//	check-key KEY             (or the input, for keys with spaces)
//	check-name what=W max=N [name=S]   (or the input)
//	check-window window=D cap=D
//	retime key=K at=D [since=D] was=WINDOW[/CAP] is=WINDOW[/CAP]
//	                          the rule for one deadline pending at now
func TestRuleScripts(t *testing.T) {
	datadriven.Walk(t, "testdata", func(t *testing.T, path string) {
		s := &ruleScript{w: NewWheel(time.Millisecond, scriptT0), now: scriptT0}
		datadriven.RunTest(t, path, s.run)
	})
}

var scriptT0 = time.Date(2026, 1, 5, 9, 0, 0, 0, time.UTC)

type ruleScript struct {
	w   *Wheel
	now time.Time
}

func (s *ruleScript) run(t *testing.T, td *datadriven.TestData) string {
	arg := func(key string) string {
		if a, ok := td.Arg(key); ok {
			return strings.Join(a.Vals, ",")
		}
		return ""
	}
	dur := func(key string) time.Duration {
		v := arg(key)
		if v == "" {
			return 0
		}
		d, err := time.ParseDuration(v)
		if err != nil {
			td.Fatalf(t, "%s=%s: %v", key, v, err)
		}
		return d
	}
	at := func(key string) time.Time {
		if arg(key) == "" {
			return time.Time{}
		}
		return scriptT0.Add(dur(key))
	}
	input := func(key string) string {
		if v := arg(key); v != "" {
			return v
		}
		return strings.TrimSuffix(td.Input, "\n")
	}
	verdict := func(err error) string {
		if err != nil {
			return "error: " + err.Error() + "\n"
		}
		return "ok\n"
	}
	switch td.Cmd {
	case "apply":
		m := Mutation{Op: op(arg("op")), Key: arg("key"), Kind: arg("kind"), At: at("at"), Since: at("since"),
			Window: dur("window"), Cap: dur("cap")}
		if p := arg("payload"); p != "" {
			m.Payload = []byte(p)
		}
		a, err := s.w.Apply(s.now, m)
		if err != nil {
			return verdict(err)
		}
		out := fmt.Sprintf("changed=%v pending=%v", a.Changed, a.Pending)
		if a.Pending {
			out += " at=" + s.offset(a.At)
		}
		return out + "\n"
	case "advance":
		d, err := time.ParseDuration(td.CmdArgs[0].Key)
		if err != nil {
			td.Fatalf(t, "advance %s: %v", td.CmdArgs[0].Key, err)
		}
		s.now = s.now.Add(d)
		var b strings.Builder
		for _, f := range s.w.Advance(s.now, nil) {
			fmt.Fprintf(&b, "fired %s at %s\n", f.Key, s.offset(f.At))
		}
		if b.Len() == 0 {
			return "nothing due\n"
		}
		return b.String()
	case "pending":
		var b strings.Builder
		for _, d := range sortedPending(s.w) {
			fmt.Fprintf(&b, "%s %s at=%s", d.Kind, d.Key, s.offset(d.At))
			if !d.Since.IsZero() {
				fmt.Fprintf(&b, " since=%s", s.offset(d.Since))
			}
			if len(d.Payload) > 0 {
				fmt.Fprintf(&b, " payload=%s", d.Payload)
			}
			b.WriteString("\n")
		}
		if b.Len() == 0 {
			return "none\n"
		}
		return b.String()
	case "check-key":
		key := strings.TrimSuffix(td.Input, "\n")
		if len(td.CmdArgs) > 0 {
			key = td.CmdArgs[0].Key
		}
		return verdict(CheckKey(key))
	case "check-name":
		var max int
		fmt.Sscan(arg("max"), &max)
		return verdict(CheckName(arg("what"), input("name"), max))
	case "check-window":
		return verdict(CheckWindow(dur("window"), dur("cap")))
	case "retime":
		d := Deadline{Key: arg("key"), Kind: "k", At: at("at"), Since: at("since")}
		m, ok := Retime(d, s.now, timing(td, t, arg("was")), timing(td, t, arg("is")))
		if !ok {
			return "stays\n"
		}
		out := fmt.Sprintf("%s %s at=%s", m.Op, m.Key, s.offset(m.At))
		if !m.Since.IsZero() {
			out += " since=" + s.offset(m.Since)
		}
		return out + "\n"
	}
	td.Fatalf(t, "unknown command %q", td.Cmd)
	return ""
}

// offset writes t as an offset from the script's scriptT0.
func (s *ruleScript) offset(t time.Time) string { return t.Sub(scriptT0).String() }

func op(name string) Op {
	for o := OpPush; o <= OpCancel; o++ {
		if o.String() == name {
			return o
		}
	}
	return 0
}

// timing parses WINDOW[/CAP] ("-" for none).
func timing(td *datadriven.TestData, t *testing.T, v string) Timing {
	var tm Timing
	for i, part := range strings.SplitN(v, "/", 2) {
		if part == "-" || part == "" {
			continue
		}
		d, err := time.ParseDuration(part)
		if err != nil {
			td.Fatalf(t, "timing %q: %v", v, err)
		}
		if i == 0 {
			tm.Window = d
		} else {
			tm.Cap = d
		}
	}
	return tm
}

func sortedPending(w *Wheel) []Deadline {
	out := slices.Collect(w.All())
	slices.SortFunc(out, func(a, b Deadline) int {
		if c := a.At.Compare(b.At); c != 0 {
			return c
		}
		return strings.Compare(a.Key, b.Key)
	})
	return out
}
