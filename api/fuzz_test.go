package api_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"
	"github.com/syndtr/goleveldb/leveldb/storage"
	"github.com/wakewheel/wakewheel/api"
	"github.com/wakewheel/wakewheel/internal/clock"
	"github.com/wakewheel/wakewheel/internal/enginetest"
	ob "github.com/wakewheel/wakewheel/obligations"
	"github.com/wakewheel/wakewheel/scheduler"
	"github.com/wakewheel/wakewheel/store"
)

// fuzzTarget is the API's handler, with the obligations routes, over a
// real runner, a real obligations service and a memory store, with a log to
// search for recovered panics.
type fuzzTarget struct {
	srv *api.Server
	h   http.Handler
	log *lockedBuffer
}

type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func newFuzzTarget(f *testing.F) *fuzzTarget {
	db, err := store.OpenStorage(storage.NewMemStorage(), store.Options{})
	if err != nil {
		f.Fatal(err)
	}
	svc, eng := enginetest.Wakes(f, db, ob.DefaultPolicies(), time.Now())
	eng.Register(api.ReminderKind, func(context.Context, scheduler.Firing) scheduler.Outcome { return scheduler.Succeeded() })
	runner := scheduler.Start(eng, clock.Real{})
	svc.Attach(runner)
	log := &lockedBuffer{}
	srv := api.NewServer(runner, db, api.Info{Version: "fuzz"}, zerolog.New(log))
	api.RegisterObligations(srv, svc)
	f.Cleanup(func() { svc.Close(); runner.Stop(); db.Close() })
	return &fuzzTarget{srv: srv, h: srv.Handler(), log: log}
}

// serve runs one request and checks what every answer must satisfy: no
// panic (recovered or not), no internal error, and a JSON error object
// with a code and a message on every failure the API itself answers.
func (ft *fuzzTarget) serve(t *testing.T, method, target string, body []byte) *httptest.ResponseRecorder {
	t.Helper()
	req, err := http.NewRequest(method, "http://wakewheel"+target, bytes.NewReader(body))
	if err != nil {
		return nil // not a request a client can send
	}
	req.Header.Set("Content-Type", "application/json")
	w := httptest.NewRecorder()
	ft.h.ServeHTTP(w, req)
	if strings.Contains(ft.log.String(), "panicked") {
		t.Fatalf("%s %s %q: a handler panicked:\n%s", method, target, body, ft.log.String())
	}
	if w.Code >= 500 && w.Code != http.StatusGatewayTimeout {
		t.Fatalf("%s %s %q: %d %s", method, target, body, w.Code, w.Body)
	}
	if w.Code >= 400 && w.Code != http.StatusMethodNotAllowed && !isRedirect(w.Code) {
		var e api.Error
		if err := json.Unmarshal(w.Body.Bytes(), &e); err != nil || e.Err.Code == "" || e.Err.Message == "" {
			t.Fatalf("%s %s %q: %d answered %q, not a JSON error", method, target, body, w.Code, w.Body)
		}
	}
	return w
}

func isRedirect(code int) bool { return code >= 300 && code < 400 }

// onlyReminderKeys checks that every pending deadline is a reminder in the
// reminder namespace, or a redeliver deadline the obligations service set
// for a post: nothing a request sends reaches the engine's other keys, and
// no request picks a kind.
func (ft *fuzzTarget) onlyReminderKeys(t *testing.T, context string) {
	t.Helper()
	w := ft.serve(t, "GET", "/v1/deadlines", nil)
	var page api.DeadlinePage
	if err := json.Unmarshal(w.Body.Bytes(), &page); err != nil {
		t.Fatalf("deadlines: %v: %s", err, w.Body)
	}
	for _, d := range page.Deadlines {
		if strings.HasPrefix(d.Key, "redeliver/") && d.Kind == ob.RedeliverKind {
			continue
		}
		if !strings.HasPrefix(d.Key, api.ReminderPrefix) || d.Kind != api.ReminderKind {
			t.Fatalf("after %s: deadline %q of kind %q is outside the reminder namespace", context, d.Key, d.Kind)
		}
	}
}

// FuzzReminderBody decodes arbitrary bodies of POST /v1/reminders.
func FuzzReminderBody(f *testing.F) {
	for _, seed := range []string{
		`{"name":"a","in":"1s"}`,
		`{"name":"a","at":"2030-01-01T00:00:00Z","message":"m","sync":true}`,
		`{"name":"a","window":"5s","cap":"1m"}`,
		`{"name":"a","window":"5s","cap":"1s"}`,
		`{"name":"../burst/x","in":"0s"}`,
		`{"name":"a","in":"-1s"}`,
		`{"name":"a","in":"9223372036854775807ns"}`,
		`{"name":"a","at":"0001-01-01T00:00:00Z"}`,
		`{"name":"a","at":"9999-12-31T23:59:59.999999999Z"}`,
		`{"name":"a","window":"1ns","cap":"2562047h"}`,
		`{"name":"\u0000","in":"1s"}`,
		`{"name":"a","in":"1s","kind":"burst"}`,
		`{"name":"a"}{"name":"b"}`,
		`[]`, `null`, `"x"`, ``,
	} {
		f.Add([]byte(seed))
	}
	ft := newFuzzTarget(f)
	f.Fuzz(func(t *testing.T, body []byte) {
		w := ft.serve(t, "POST", "/v1/reminders", body)
		if w.Code == http.StatusOK {
			var res api.ReminderResult
			if err := json.Unmarshal(w.Body.Bytes(), &res); err != nil || !strings.HasPrefix(res.Key, api.ReminderPrefix) {
				t.Fatalf("%q: answered %s", body, w.Body)
			}
		}
		ft.onlyReminderKeys(t, string(body))
	})
}

// FuzzObligationBody decodes arbitrary bodies on the obligations routes
// that take one.
func FuzzObligationBody(f *testing.F) {
	targets := []string{"/v1/obligations", "/v1/lanes", "/v1/lanes/dev/ack", "/v1/lanes/dev/resume"}
	for i, body := range []string{
		`{"lane":"dev","id":"1","class":"peer","body":"b","create":true}`,
		`{"lane":"dev"}`,
		`{"upto":1}`,
		`{"who":"me","checkpoint":{"lane":"dev","consumed":0,"head":0,"at":"2026-01-01T00:00:00Z"}}`,
		`{"lane":"dev","class":"human","body":"b","locator":{"repo":"r"}}`,
		`{"lane":"dev","class":"digest","id":"` + strings.Repeat("x", 300) + `","body":"b"}`,
		`{"upto":18446744073709551615}`,
		`{"lane":"a/b","class":"peer","body":"b","create":true}`,
	} {
		f.Add(uint8(i), []byte(body))
	}
	ft := newFuzzTarget(f)
	f.Fuzz(func(t *testing.T, route uint8, body []byte) {
		target := targets[int(route)%len(targets)]
		ft.serve(t, "POST", target, body)
		ft.onlyReminderKeys(t, target+" "+string(body))
	})
}

// FuzzRequest sends arbitrary methods, paths, queries and bodies to the
// whole route table.
func FuzzRequest(f *testing.F) {
	seeds := []struct{ method, target, body string }{
		{"GET", "/v1/status", ""},
		{"GET", "/v1/deadlines?prefix=reminder%2F", ""},
		{"GET", "/v1/alerts?limit=5", ""},
		{"GET", "/v1/alerts?limit=-1", ""},
		{"GET", "/v1/fires?after=18446744073709551615&limit=3", ""},
		{"POST", "/v1/reminders", `{"name":"x","in":"1ms"}`},
		{"DELETE", "/v1/reminders/x?sync=true", ""},
		{"DELETE", "/v1/reminders/%2e%2e", ""},
		{"DELETE", "/v1/reminders/a%2Fb", ""},
		{"GET", "/v1/../v1/status", ""},
		{"PUT", "/v1/status", "{}"},
		{"POST", "/v1/obligations", `{"lane":"dev","id":"1","class":"peer","body":"b","create":true}`},
		{"POST", "/v1/obligations", `{"lane":"dev","class":"human","body":"b","locator":{"repo":"r","sha":"abc"}}`},
		{"POST", "/v1/obligations", `{"lane":"dev","class":"alert","key":"k","body":"b","canary":true}`},
		{"POST", "/v1/lanes", `{"lane":"dev"}`},
		{"GET", "/v1/lanes", ""},
		{"GET", "/v1/lanes/dev/digest?who=me", ""},
		{"POST", "/v1/lanes/dev/ack", `{"upto":1,"action":"done"}`},
		{"POST", "/v1/lanes/dev/ack", `{"upto":0}`},
		{"POST", "/v1/lanes/dev/park", ""},
		{"POST", "/v1/lanes/dev/resume", `{"who":"me","checkpoint":{"lane":"dev","consumed":1,"head":1,"at":"2026-01-01T00:00:00Z"}}`},
		{"POST", "/v1/lanes/%2e%2e/resume", `{}`},
		{"GET", "/v1/ledger?after=0&limit=10", ""},
		{"POST", "/v1/roots", `{"path":"/tmp","ingest":"true"}`},
	}
	for _, s := range seeds {
		f.Add(s.method, s.target, []byte(s.body))
	}
	ft := newFuzzTarget(f)
	f.Fuzz(func(t *testing.T, method, target string, body []byte) {
		if !strings.HasPrefix(target, "/") || strings.Contains(target, "/wait") {
			return // a long poll would only make the fuzzer wait
		}
		ft.serve(t, method, target, body)
		ft.onlyReminderKeys(t, method+" "+target)
	})
}
