package deadlines

import (
	"maps"
	"slices"
	"testing"
	"time"
)

// TestRetimeRule: the cases of the re-timing rule one by one (the scripts
// in testdata/retime.txt read the same rule as a table).
func TestRetimeRule(t *testing.T) {
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	since := now.Add(-4 * time.Second)
	d := Deadline{Key: "burst/r", At: now.Add(time.Second), Since: since}
	cases := []struct {
		name    string
		d       Deadline
		was, is Timing
		want    time.Time
		moved   bool
	}{
		{"silence shorter than what is left", d, Timing{Window: time.Second}, Timing{Window: 200 * time.Millisecond}, now.Add(200 * time.Millisecond), true},
		{"silence longer than what is left", d, Timing{Window: 3 * time.Second}, Timing{Window: 2 * time.Second}, time.Time{}, false},
		{"cap cuts the window", d, Timing{Cap: 5 * time.Second}, Timing{Cap: 4500 * time.Millisecond}, since.Add(4500 * time.Millisecond), true},
		{"cap already passed: due now", d, Timing{Cap: 5 * time.Second}, Timing{Cap: 3 * time.Second}, now, true},
		{"cap beyond the window", d, Timing{Cap: time.Minute}, Timing{Cap: 10 * time.Second}, time.Time{}, false},
		{"cap of a pushed deadline", Deadline{Key: "burst/r", At: now.Add(time.Hour)}, Timing{Cap: time.Hour}, Timing{Cap: time.Second}, time.Time{}, false},
		{"a longer window never moves it later", d, Timing{Window: 500 * time.Millisecond}, Timing{Window: time.Hour}, time.Time{}, false},
	}
	for _, tc := range cases {
		m, moved := Retime(tc.d, now, tc.was, tc.is)
		if moved != tc.moved || moved && (!m.At.Equal(tc.want) || m.Op != OpReset || !m.Since.Equal(tc.d.Since)) {
			t.Errorf("%s: got %v %v, want reset at %s %v", tc.name, m, moved, tc.want, tc.moved)
		}
	}
}

// TestRetimeAllAsksTheOwner: only keys the owner claims under both
// timetables move.
func TestRetimeAllAsksTheOwner(t *testing.T) {
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	pending := map[string]Deadline{
		"mine/a":   {Key: "mine/a", Kind: "k", At: now.Add(time.Hour)},
		"mine/b":   {Key: "mine/b", Kind: "k", At: now.Add(time.Minute)},
		"theirs/c": {Key: "theirs/c", Kind: "k", At: now.Add(time.Hour)},
	}
	owner := func(window time.Duration) Timetable {
		return func(key string) (Timing, bool) {
			return Timing{Window: window}, len(key) > 5 && key[:5] == "mine/"
		}
	}
	keys := slices.Sorted(maps.Keys(pending))
	ds := func(yield func(Deadline) bool) {
		for _, k := range keys {
			if !yield(pending[k]) {
				return
			}
		}
	}
	got := RetimeAll(ds, now, owner(time.Hour), owner(10*time.Minute))
	if len(got) != 1 || got[0].Key != "mine/a" || !got[0].At.Equal(now.Add(10*time.Minute)) {
		t.Fatalf("RetimeAll = %v; want only mine/a, to now+10m (mine/b is sooner already, theirs/c is not claimed)", got)
	}
}
