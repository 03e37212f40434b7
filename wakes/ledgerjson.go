package wakes

import (
	"strconv"

	"github.com/wakewheel/wakewheel/internal/jsonw"
	ob "github.com/wakewheel/wakewheel/obligations"
)

// A ledger entry is written with every post, in the post's commit: by
// hand, as json.Marshal writes it (field order and omissions follow
// obligations.Entry's tags; the tests compare every byte with
// encoding/json), since reflection cost the post path more than any other
// step of its encoding. The ledger's reader is encoding/json.

// appendEntry appends e as json.Marshal writes it; false, and nothing
// appended, for a time encoding/json refuses (a year outside 0..9999).
func appendEntry(b []byte, e *ob.Entry) ([]byte, bool) {
	front := len(b)
	b = append(b, `{"kind":`...)
	b = jsonw.AppendString(b, string(e.Kind))
	b = append(b, `,"lane":`...)
	b = jsonw.AppendString(b, e.Lane)
	if e.Seq != 0 {
		b = append(b, `,"seq":`...)
		b = strconv.AppendUint(b, e.Seq, 10)
	}
	b = appendField(b, `,"id":`, e.ID)
	b = appendField(b, `,"class":`, string(e.Class))
	b = appendField(b, `,"wake_id":`, e.WakeID)
	b = appendField(b, `,"action":`, e.Action)
	if e.Canary {
		b = append(b, `,"canary":true`...)
	}
	b = appendField(b, `,"mode":`, string(e.Mode))
	if e.Work {
		b = append(b, `,"work":true`...)
	}
	ok := true
	if !e.Event.IsZero() {
		b = append(b, `,"event":`...)
		b, ok = jsonw.AppendTime(b, e.Event)
	}
	b = append(b, `,"at":`...)
	b, atOK := jsonw.AppendTime(b, e.At)
	if !ok || !atOK {
		return b[:front], false
	}
	return append(b, '}'), true
}

// appendField appends key and s unless s is empty (omitempty).
func appendField(b []byte, key, s string) []byte {
	if s == "" {
		return b
	}
	return jsonw.AppendString(append(b, key...), s)
}

// ledgerKey is an entry's key: ledgerEntryPrefix and seq in 20 digits.
func ledgerKey(seq uint64) string {
	const width = len(ledgerEntryPrefix) + 20
	var b [width]byte
	copy(b[:], ledgerEntryPrefix)
	digits := strconv.AppendUint(b[len(ledgerEntryPrefix):len(ledgerEntryPrefix)], seq, 10)
	n := copy(b[width-len(digits):], digits)
	for i := len(ledgerEntryPrefix); i < width-n; i++ {
		b[i] = '0'
	}
	return string(b[:])
}
