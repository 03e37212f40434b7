package jsonw

import (
	"encoding/json"
	"testing"
	"time"
)

func TestAppendStringAsEncodingJSON(t *testing.T) {
	for _, s := range []string{"", "plain", `quote " and \ backslash`, "<b>&amp;</b>", "\x00\x1f\b\f\n\r\t",
		"é ü 中文 😀", "\u2028\u2029", "bad \xff utf-8 \xc3", "\xed\xa0\x80 surrogate"} {
		want, _ := json.Marshal(s)
		if got := AppendString([]byte("x"), s); string(got) != "x"+string(want) {
			t.Errorf("%q:\n got %s\nwant x%s", s, got, want)
		}
	}
}

func TestAppendTimeAsEncodingJSON(t *testing.T) {
	for _, tm := range []time.Time{time.Date(2026, 12, 1, 16, 0, 0, 0, time.UTC), time.Date(1, 1, 1, 0, 0, 0, 1, time.UTC),
		time.Date(9999, 12, 31, 23, 59, 59, 999999999, time.FixedZone("", -(23*3600+59*60))), time.Unix(1, 500)} {
		want, err := json.Marshal(tm)
		got, ok := AppendTime([]byte("x"), tm)
		if err != nil || !ok || string(got) != "x"+string(want) {
			t.Errorf("%v:\n got %s (%v)\nwant x%s (%v)", tm, got, ok, want, err)
		}
	}
	for _, tm := range []time.Time{time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(-1, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(2026, 1, 1, 0, 0, 0, 0, time.FixedZone("", 24*3600))} {
		if _, err := json.Marshal(tm); err == nil {
			t.Fatalf("encoding/json took %v", tm)
		}
		if got, ok := AppendTime([]byte("x"), tm); ok || string(got) != "x" {
			t.Errorf("%v: took a time encoding/json refuses: %s", tm, got)
		}
	}
}
