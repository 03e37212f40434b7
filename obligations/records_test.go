package obligations_test

import (
	"errors"
	"reflect"
	"testing"
	"time"

	ob "github.com/wakewheel/wakewheel/obligations"
)

func sampleRecords() []ob.Record {
	return []ob.Record{
		{Kind: ob.RecordObligation, Obligation: ob.Obligation{
			Lane: "lane-1", Seq: 42, ID: "p-42", Class: ob.ClassPeer, Body: "line one\nline two ✓",
			Locator: ob.Locator{Repo: "wakewheel", Issue: "4", SHA: "abc123", File: "obligations/doc.go"},
			Key:     "k", Canary: true, Posted: t0,
		}},
		{Kind: ob.RecordObligation, Obligation: ob.Obligation{Lane: "a", Seq: 1, ID: "h", Class: ob.ClassHuman}},
		{Kind: ob.RecordCursor, Cursor: ob.Cursor{Lane: "a", Received: 9, Consumed: 7, At: t0.Add(time.Second)}},
		{Kind: ob.RecordCheckpoint, Checkpoint: ob.Checkpoint{Lane: "a", Consumed: 7, Head: 9, At: t0}},
		{Kind: ob.RecordCompaction, Compaction: ob.Compaction{Lane: "a", Base: 5, At: t0, TombSince: t0.Add(-time.Hour)}},
		{Kind: ob.RecordTombstone, Tombstone: ob.Tombstone{Lane: "a", ID: "p/1", Seq: 3, Class: ob.ClassPeer, Posted: t0.Add(-time.Hour), Compacted: t0}},
	}
}

func TestRecordRoundTrip(t *testing.T) {
	for _, r := range sampleRecords() {
		b := ob.Encode(r)
		if b[0] != ob.RecordVersion {
			t.Fatalf("first byte %d, want the version", b[0])
		}
		got, err := ob.Decode(b)
		if err != nil {
			t.Fatalf("%s: %v", r.Key(), err)
		}
		if !reflect.DeepEqual(got, r) {
			t.Fatalf("round trip of %s:\n got %+v\nwant %+v", r.Key(), got, r)
		}
	}
}

func TestRecordKeys(t *testing.T) {
	var keys []string
	for _, r := range sampleRecords() {
		keys = append(keys, r.Key())
	}
	want := []string{"o/lane-1/00000000000000000042", "o/a/00000000000000000001", "c/a", "p/a", "b/a", "t/a/p/1"}
	if !reflect.DeepEqual(keys, want) {
		t.Fatalf("keys %q, want %q", keys, want)
	}
}

func TestDecodeRejectsGarbage(t *testing.T) {
	good := ob.Encode(sampleRecords()[0])
	cursor := ob.Encode(sampleRecords()[2])
	cases := map[string][]byte{
		"empty":          nil,
		"one byte":       {1},
		"future version": {2, 1},
		"unknown kind":   {1, 9},
		"truncated":      good[:len(good)-3],
		"trailing byte":  append(append([]byte{}, good...), 0),
		"bad class":      obligationWithClassByte(good, 7),
		"huge length":    {1, 2, 0xff, 0xff, 0xff, 0xff, 0x0f, 'a'},
		"consumed past received": func() []byte {
			r := sampleRecords()[2]
			r.Cursor.Consumed = 10
			return ob.Encode(r)
		}(),
		"bad lane":    ob.Encode(ob.Record{Kind: ob.RecordCursor, Cursor: ob.Cursor{Lane: "a/b"}}),
		"cursor tail": cursor[:len(cursor)-1],
	}
	for name, b := range cases {
		if _, err := ob.Decode(b); !errors.Is(err, ob.ErrBadRecord) {
			t.Errorf("%s: Decode = %v, want ErrBadRecord", name, err)
		}
	}
}

// obligationWithClassByte re-encodes the sample obligation with its class
// byte replaced.
func obligationWithClassByte(good []byte, class byte) []byte {
	b := append([]byte{}, good...)
	// version, kind, lane (len 6 + "lane-1"), seq 42, id (len 4 + "p-42"), class
	b[2+7+1+5] = class
	return b
}

func FuzzDecode(f *testing.F) {
	for _, r := range sampleRecords() {
		f.Add(ob.Encode(r))
	}
	f.Add([]byte{1, 1, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := ob.Decode(b)
		if err != nil {
			return
		}
		again, err := ob.Decode(ob.Encode(r))
		if err != nil || !reflect.DeepEqual(again, r) {
			t.Fatalf("decoded record does not round-trip: %+v / %+v, %v", r, again, err)
		}
	})
}
