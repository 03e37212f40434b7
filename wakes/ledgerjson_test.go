package wakes

import (
	"encoding/json"
	"fmt"
	"reflect"
	"testing"
	"time"

	ob "github.com/wakewheel/wakewheel/obligations"
)

// appendEntry writes what json.Marshal writes, byte for byte, for every
// field set and unset, strings that need escapes and times in any zone.
func TestLedgerEntryAsEncodingJSON(t *testing.T) {
	if n := reflect.TypeFor[ob.Entry]().NumField(); n != 12 {
		t.Fatalf("obligations.Entry has %d fields, appendEntry writes 12: write the new ones there too", n)
	}
	at := time.Date(2026, 12, 1, 16, 40, 5, 123456789, time.UTC)
	zone := time.FixedZone("x", -(3*3600 + 30*60))
	odd := "a<b>&\"c\"\\\n\t\x01\u2028\u2029\xff é"
	entries := []ob.Entry{
		{Kind: ob.EntryPost, Lane: "lane-1", Seq: 7, ID: "p7", Class: ob.ClassHuman, Event: at, At: at},
		{Kind: ob.EntryDelivery, Lane: "l", Seq: 1 << 63, WakeID: "w-1", At: at.In(zone)},
		{Kind: ob.EntryAction, Lane: odd, ID: odd, Class: ob.Class(odd), WakeID: odd, Action: odd, Canary: true,
			Mode: ob.TurnMode(odd), Work: true, Event: at.Add(-time.Hour).In(zone), At: at.Truncate(time.Second)},
		{Kind: ob.EntryNoop, Lane: ""},
		{Kind: ob.EntryTurn, Lane: "t", Mode: "hook", At: time.Date(1, 1, 1, 0, 0, 0, 1, time.UTC)},
		{Kind: ob.EntryClose, Lane: "c", Action: "forced", At: time.Unix(0, 0).In(time.Local)},
	}
	for i := range entries {
		want, err := json.Marshal(&entries[i])
		if err != nil {
			t.Fatal(err)
		}
		got, ok := appendEntry([]byte("prefix"), &entries[i])
		if !ok || string(got) != "prefix"+string(want) {
			t.Errorf("entry %d:\n got %s (ok %v)\nwant prefix%s", i, got, ok, want)
		}
	}
	for _, bad := range []ob.Entry{
		{Kind: ob.EntryPost, Lane: "l", At: time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)},
		{Kind: ob.EntryPost, Lane: "l", Event: time.Date(-1, 1, 1, 0, 0, 0, 0, time.UTC), At: at},
	} {
		if _, err := json.Marshal(&bad); err == nil {
			t.Fatalf("encoding/json took %v", bad)
		}
		if got, ok := appendEntry([]byte("prefix"), &bad); ok || string(got) != "prefix" {
			t.Errorf("appendEntry took a time encoding/json refuses: %q %v", got, ok)
		}
	}
}

func TestLedgerKeyIsTwentyDigits(t *testing.T) {
	for _, seq := range []uint64{0, 1, 42, 1234567890, 1<<64 - 1} {
		if got, want := ledgerKey(seq), fmt.Sprintf("%s%020d", ledgerEntryPrefix, seq); got != want {
			t.Errorf("ledgerKey(%d) = %q, want %q", seq, got, want)
		}
	}
}
