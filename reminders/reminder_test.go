package reminders

import (
	"errors"
	"strings"
	"testing"
	"time"

	ob "github.com/wakewheel/wakewheel/obligations"
)

func TestValidateName(t *testing.T) {
	for _, good := range []string{"standup", "review at 5", "a.b-c_d", "café"} {
		if err := ValidateName(good); err != nil {
			t.Errorf("%q: %v", good, err)
		}
	}
	for _, bad := range []string{"", "a/b", "..", "x..y", "tab\there", "nl\n", "del\x7f", strings.Repeat("x", MaxNameLen+1), "\xff"} {
		if err := ValidateName(bad); !errors.Is(err, ErrBadName) {
			t.Errorf("%q: got %v, want ErrBadName", bad, err)
		}
	}
}

func TestCheckDue(t *testing.T) {
	now := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	if err := CheckDue(now, now); err != nil {
		t.Errorf("now itself: %v", err)
	}
	err := CheckDue(now.Add(-90*time.Second), now)
	if !errors.Is(err, ErrPast) || !strings.Contains(err.Error(), "1m30s ago") {
		t.Errorf("90s ago: %v", err)
	}
}

// A payload round-trips; one stored as plain text (before reminders could
// name a lane) decodes as its message, and a message-only payload keeps
// that form.
func TestPayloadVersions(t *testing.T) {
	for _, p := range []Payload{{}, {Message: "tea"}, {Lane: "dev", Note: "look at #12"}, {Message: "\x01odd", Lane: ""}} {
		got, err := Decode(Encode(p))
		if err != nil || got != p {
			t.Errorf("%+v: decoded %+v, %v", p, got, err)
		}
	}
	if string(Encode(Payload{Message: "tea"})) != "tea" {
		t.Error("a message-only payload changed its stored form")
	}
	if got, _ := Decode([]byte("written by an older build")); got.Message != "written by an older build" {
		t.Errorf("legacy payload: %+v", got)
	}
	if _, err := Decode([]byte{payloadV1, '{'}); !errors.Is(err, ErrBadPayload) {
		t.Errorf("a damaged payload: %v", err)
	}
	if err := (Payload{Note: "x"}).Validate(); !errors.Is(err, ErrBadPayload) {
		t.Errorf("a note without a lane: %v", err)
	}
	if err := (Payload{Lane: "a/b"}).Validate(); !errors.Is(err, ob.ErrBadLane) {
		t.Errorf("a bad lane: %v", err)
	}
}

// The alert a reminder posts is valid for the obligations package,
// coalesces by the reminder's key, and is idempotent per due time.
func TestObligationPostsToTheLane(t *testing.T) {
	due := time.Date(2026, 12, 1, 9, 30, 0, 0, time.UTC)
	if _, ok := Obligation("x", Payload{Message: "m"}, due); ok {
		t.Fatal("a reminder without a lane posted")
	}
	st, err := ob.New(ob.DefaultPolicies())
	if err != nil {
		t.Fatal(err)
	}
	name := "wake me up"
	o, ok := Obligation(name, Payload{Lane: "dev", Note: "check the build"}, due)
	if !ok || o.Class != ob.ClassAlert || o.Key != "reminder/wake me up" || o.Body != "check the build" {
		t.Fatalf("%+v", o)
	}
	first, _, err := st.Post(o, due)
	if err != nil {
		t.Fatalf("the alert does not post: %v", err)
	}
	again, _, _ := st.Post(o, due.Add(time.Second))
	if !again.Duplicate || again.Seq != first.Seq {
		t.Fatalf("the same fire posted twice: %+v", again)
	}
	later, _ := Obligation(name, Payload{Lane: "dev"}, due.Add(time.Hour))
	if later.ID == o.ID || !strings.Contains(later.Body, "reminder wake me up is due") {
		t.Fatalf("the next fire: %+v", later)
	}
	if _, _, err := st.Post(later, due.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	d, _ := st.Digest("dev", "", due.Add(time.Hour))
	if len(d.Alerts) != 1 || d.Alerts[0].Count != 2 {
		t.Fatalf("two fires of one reminder do not coalesce: %+v", d.Alerts)
	}
	long, _ := Obligation(strings.Repeat("é", 100), Payload{Lane: "dev"}, due)
	if len(long.ID) > ob.MaxIDLen {
		t.Fatalf("id of %d bytes", len(long.ID))
	}
	if _, _, err := st.Post(long, due); err != nil {
		t.Fatalf("a long name's alert: %v", err)
	}
}
