package agenthooks

import (
	"strings"
	"testing"

	ob "github.com/wakewheel/wakewheel/obligations"
)

func TestShouldBlockNeverTwiceInOneStopChain(t *testing.T) {
	work := ob.Digest{Lane: "rev", WakeID: "rev@3", Head: 3, Counts: ob.Counts{Human: 1}}
	idle := ob.Digest{Lane: "rev", WakeID: "rev@3", Head: 3, Consumed: 3, Noop: true}
	for _, tc := range []struct {
		name      string
		active    bool
		d         ob.Digest
		lastBlock string
		want      bool
	}{
		{"work, first stop", false, work, "", true},
		{"nothing unconsumed", false, idle, "", false},
		{"continuing from the block of this wake", true, work, "rev@3", false},
		{"continuing, and a newer wake came", true, work, "rev@2", true},
		{"a fresh stop after the user spoke: offered again", false, work, "rev@3", true},
	} {
		if got := ShouldBlock(tc.active, tc.d, tc.lastBlock); got != tc.want {
			t.Errorf("%s: ShouldBlock = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestDecodeAndOutputs(t *testing.T) {
	ev, err := Decode(strings.NewReader(`{"session_id":"s1","transcript_path":"/t","cwd":"/w","hook_event_name":"Stop","stop_hook_active":true,"extra":1}`))
	if err != nil || ev.SessionID != "s1" || ev.CWD != "/w" || !ev.StopHookActive || ev.HookEventName != EventStop {
		t.Fatalf("decode: %+v %v", ev, err)
	}
	for _, bad := range []string{"", "nope", `{"session_id":"s"}`} {
		if _, err := Decode(strings.NewReader(bad)); err == nil {
			t.Errorf("Decode(%q) accepted", bad)
		}
	}
	d := ob.Digest{Lane: "rev", Who: "claude-code", WakeID: "rev@2", Head: 2, Received: 2, Counts: ob.Counts{Human: 1},
		Messages: []ob.Obligation{{Seq: 2, ID: "m2", Class: ob.ClassHuman, Body: "please review #7"}}}
	r := BlockReason(d)
	if !strings.Contains(r, "please review #7") || !strings.Contains(r, "wakewheel ack --lane rev --upto 2") {
		t.Fatalf("block reason:\n%s", r)
	}
	if c := PromptContext(d); !strings.Contains(c, "please review #7") {
		t.Fatalf("prompt context:\n%s", c)
	}
	if !(Output{}).Empty() || Block("x").Empty() || Context(EventSessionStart, "x").HookSpecificOutput.HookEventName != EventSessionStart {
		t.Fatal("outputs")
	}
}
