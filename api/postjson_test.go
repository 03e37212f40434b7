package api

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"
	"unsafe"

	ob "github.com/wakewheel/wakewheel/obligations"
)

// awkward strings: what encoding/json escapes, and what it mends.
var awkward = []string{"", "plain", `quote " and \ backslash`, "<b>&amp;</b>", "tab\tnew\nline\rcr\bbs\fff",
	"\x00\x01\x1f\x7f", "é ü 日本 😀", "line\u2028para\u2029", "bad \xff utf-8 \xc3", "/slash/"}

func requests() []PostRequest {
	out := []PostRequest{{Lane: "review", Class: "human", Body: "look"}}
	for i, s := range awkward {
		out = append(out, PostRequest{Lane: s, Class: "peer", ID: s, Body: s, Key: s, Wait: s,
			Canary: i%2 == 0, Create: i%3 == 0, Locator: ob.Locator{Repo: s, SHA: strings.Repeat(s, i%2)}})
	}
	out = append(out, PostRequest{Lane: "l", Class: "alert", Locator: ob.Locator{File: "a.go"}})
	return out
}

func results() []PostResult {
	zones := []*time.Location{time.UTC, time.FixedZone("x", -(3*3600 + 30*60)), time.FixedZone("y", 14*3600)}
	var out []PostResult
	for i, s := range awkward {
		at := time.Date(2026, 12, 1, 11, 30, i, i*123457, zones[i%len(zones)])
		out = append(out, PostResult{Duplicate: i%2 == 1, Route: strings.Repeat(s, i%2),
			Obligation: ob.Obligation{Lane: s, Seq: uint64(i) << 40, ID: s, Class: ob.Class(s), Body: s, Key: s,
				Canary: i%2 == 0, Posted: at, Duplicate: i%3 == 0, Compacted: i%4 == 0,
				Locator: ob.Locator{Issue: s, File: strings.Repeat(s, i%2)}}})
	}
	return out
}

// The hand-written post JSON writes what encoding/json writes, byte for
// byte, and reads it back to the same values.
func TestPostJSONIsEncodingJSONs(t *testing.T) {
	for _, req := range requests() {
		want, err := json.Marshal(req)
		if err != nil {
			t.Fatal(err)
		}
		if got := appendPostRequest(nil, &req); string(got) != string(want) {
			t.Errorf("request %+v:\n got %s\nwant %s", req, got, want)
		}
		var back PostRequest
		if err := decodeJSON(want, &back); err != nil {
			t.Fatal(err)
		}
		if got, ok := parsePostRequest(want); ok && !reflect.DeepEqual(got, back) {
			t.Errorf("request %s read as %+v, encoding/json %+v", want, got, back)
		} else if !ok && strings.ToValidUTF8(string(want), "") == string(want) {
			t.Errorf("request %s: left to encoding/json", want)
		}
	}
	for _, res := range results() {
		var want strings.Builder
		if err := json.NewEncoder(&want).Encode(res); err != nil {
			t.Fatal(err)
		}
		got, ok := appendPostResult(nil, &res)
		if !ok || string(got) != want.String() {
			t.Errorf("result %+v:\n got %s\nwant %s", res, got, want.String())
		}
		var back PostResult
		if err := json.Unmarshal([]byte(want.String()), &back); err != nil {
			t.Fatal(err)
		}
		if read, ok := parsePostResult(got); !ok {
			t.Errorf("result %s: left to encoding/json", got)
		} else {
			sameResult(t, string(got), read, back)
		}
	}
}

// A time MarshalJSON refuses is left to encoding/json (and its error).
func TestPostResultTimeOutOfRange(t *testing.T) {
	res := PostResult{Obligation: ob.Obligation{Posted: time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)}}
	if _, ok := appendPostResult(nil, &res); ok {
		t.Fatal("year 10000 written by hand; encoding/json refuses it")
	}
}

// What the readers take, encoding/json takes too, with the same values;
// what they do not take, encoding/json decides.
func FuzzPostJSON(f *testing.F) {
	for _, req := range requests() {
		b, _ := json.Marshal(req)
		f.Add(b)
	}
	for _, res := range results() {
		b, _ := json.Marshal(res)
		f.Add(b)
	}
	f.Add([]byte(`{"Lane":"x","class":"human","body":"b"}`))
	f.Add([]byte(`{"lane":"a\u00e9\ud83d\ude00","body":null,"locator":{"repo":"r"},"locator":{"sha":"s"}} `))
	f.Add([]byte(`{"obligation":{"seq":01,"posted":"2026-12-01T1:00:00Z"},"duplicate":false}`))
	f.Add([]byte(`{"obligation":{"seq":18446744073709551615,"posted":"2026-12-01T11:00:00,5+01:00"}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		if got, ok := parsePostRequest(b); ok {
			var want PostRequest
			if err := decodeJSON(b, &want); err != nil {
				t.Fatalf("%q read as %+v; encoding/json refuses it: %v", b, got, err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("%q read as %+v; encoding/json %+v", b, got, want)
			}
		}
		if got, ok := parsePostResult(b); ok {
			var want PostResult
			if err := json.Unmarshal(b, &want); err != nil {
				t.Fatalf("%q read as %+v; encoding/json refuses it: %v", b, got, err)
			}
			sameResult(t, string(b), got, want)
			like := PostRequest{Lane: got.Obligation.Lane, ID: "s", Class: "human", Body: got.Obligation.Body}
			if read, ok := parsePostAnswer(b, &like); !ok {
				t.Fatalf("%q read alone, left to encoding/json with a request", b)
			} else {
				sameResult(t, string(b), read, want)
			}
		}
	})
}

func sameResult(t *testing.T, in string, got, want PostResult) {
	t.Helper()
	if !got.Obligation.Posted.Equal(want.Obligation.Posted) || got.Obligation.Posted.Location().String() != want.Obligation.Posted.Location().String() {
		t.Fatalf("%s: posted read as %v; encoding/json %v", in, got.Obligation.Posted, want.Obligation.Posted)
	}
	got.Obligation.Posted, want.Obligation.Posted = time.Time{}, time.Time{}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%s read as %+v; encoding/json %+v", in, got, want)
	}
}

// An answer read with the request it answers reads the same values as
// without it, whether its strings are the request's or not, and takes the
// request's own strings where they are alike.
func TestPostAnswerReadWithItsRequest(t *testing.T) {
	for _, res := range results() {
		got, _ := appendPostResult(nil, &res)
		want, ok := parsePostResult(got)
		if !ok {
			t.Fatalf("result %s: left to encoding/json", got)
		}
		o := res.Obligation
		for _, like := range []PostRequest{{Lane: o.Lane, ID: o.ID, Class: string(o.Class), Body: o.Body}, {Lane: o.Lane + "x", ID: "", Class: "human", Body: "-"}} {
			read, ok := parsePostAnswer(got, &like)
			if !ok {
				t.Fatalf("result %s with %+v: left to encoding/json", got, like)
			}
			sameResult(t, string(got), read, want)
		}
	}
	req := PostRequest{Lane: "lane-3", ID: "s1", Class: "human", Body: "please review the retry budget"}
	res := PostResult{Obligation: ob.Obligation{Lane: req.Lane, Seq: 7, ID: req.ID, Class: ob.Class(req.Class), Body: req.Body, Posted: time.Now()}}
	b, _ := appendPostResult(nil, &res)
	read, _ := parsePostAnswer(b, &req)
	if unsafe.StringData(read.Obligation.Body) != unsafe.StringData(req.Body) || unsafe.StringData(read.Obligation.Lane) != unsafe.StringData(req.Lane) {
		t.Error("the answer's body and lane were copied, not the request's")
	}
	if n := testing.AllocsPerRun(100, func() { parsePostAnswer(b, &req) }); n != 0 {
		t.Errorf("reading the answer to its request allocates %v times, want 0", n)
	}
}

// BenchmarkParsePostAnswer is the client's reading of a post's answer,
// with the request it answers and without.
func BenchmarkParsePostAnswer(b *testing.B) {
	req := PostRequest{Lane: "lane-3", ID: "s12345", Class: "human", Body: "please review the retry budget in scheduler/engine.go"}
	res := PostResult{Obligation: ob.Obligation{Lane: req.Lane, Seq: 12345, ID: req.ID, Class: ob.Class(req.Class), Body: req.Body, Posted: time.Now()}}
	data, _ := appendPostResult(nil, &res)
	for _, c := range []struct {
		name string
		like *PostRequest
	}{{"request", &req}, {"alone", nil}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, ok := parsePostAnswer(data, c.like); !ok {
					b.Fatal("left to encoding/json")
				}
			}
		})
	}
}
