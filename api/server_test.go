package api_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"
	"github.com/wakewheel/wakewheel"
	"github.com/wakewheel/wakewheel/api"
	"github.com/wakewheel/wakewheel/internal/clock"
	"github.com/wakewheel/wakewheel/internal/enginetest"
	"github.com/wakewheel/wakewheel/scheduler"
)

// newServer serves the API in-process over a real runner and a memory
// store, with reminder as the handler of reminders.
func newServer(t *testing.T, reminder scheduler.Handler) *httptest.Server {
	t.Helper()
	db, eng := enginetest.Mem(t, scheduler.Options{}, time.Now())
	eng.Register(api.ReminderKind, reminder)
	runner := scheduler.Start(eng, clock.Real{})
	srv := httptest.NewServer(api.NewServer(runner, db, api.Info{Version: "test"}, zerolog.Nop()).Handler())
	t.Cleanup(func() { srv.Close(); runner.Stop() })
	return srv
}

func request(t *testing.T, srv *httptest.Server, method, path, body string) (int, map[string]any) {
	t.Helper()
	req, err := http.NewRequest(method, srv.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		t.Fatalf("%s %s: answer is not a JSON object: %v", method, path, err)
	}
	return resp.StatusCode, out
}

func TestMalformedRequestsGetAClearJSONError(t *testing.T) {
	srv := newServer(t, func(context.Context, scheduler.Firing) scheduler.Outcome { return scheduler.Succeeded() })
	cases := []struct {
		name, method, path, body string
		status                   int
		message                  string
	}{
		{"not JSON", "POST", "/v1/reminders", `{"name": "a", "in": `, 400, "malformed JSON body"},
		{"unknown field", "POST", "/v1/reminders", `{"name": "a", "in": "1s", "when": "now"}`, 400, `unknown field "when"`},
		{"two values", "POST", "/v1/reminders", `{"name": "a"}{"name": "b"}`, 400, "more than one JSON value"},
		{"no timing", "POST", "/v1/reminders", `{"name": "a"}`, 400, "give exactly one of in, at, window"},
		{"both timings", "POST", "/v1/reminders", `{"name": "a", "in": "1s", "at": "2030-01-01T00:00:00Z"}`, 400, "give exactly one of in, at, window"},
		{"bad duration", "POST", "/v1/reminders", `{"name": "a", "in": "soon"}`, 400, `in="soon" is not a non-negative duration`},
		{"bad time", "POST", "/v1/reminders", `{"name": "a", "at": "tomorrow"}`, 400, `at="tomorrow" is not an RFC 3339 time`},
		{"cap below window", "POST", "/v1/reminders", `{"name": "a", "window": "5s", "cap": "1s"}`, 400, "must be a duration at least the window"},
		{"empty name", "POST", "/v1/reminders", `{"name": "", "in": "1s"}`, 400, "want 1..200 bytes"},
		{"control character", "POST", "/v1/reminders", `{"name": "a\u0007", "in": "1s"}`, 400, "control character"},
		{"bad limit", "GET", "/v1/alerts?limit=lots", "", 400, `limit="lots": want an integer`},
		{"too large", "POST", "/v1/reminders", `{"name": "a", "in": "1s", "message": "` + strings.Repeat("x", api.MaxRequestBytes) + `"}`, 413, "exceeds"},
		{"no route", "GET", "/v1/nothing", "", 404, "no route GET /v1/nothing"},
		{"wrong method", "PUT", "/v1/status", "", 405, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			status, out := request(t, srv, tc.method, tc.path, tc.body)
			if tc.status == 405 {
				if status != 405 && status != 404 {
					t.Fatalf("status %d, want 405 or 404", status)
				}
				return
			}
			if status != tc.status {
				t.Fatalf("status %d, want %d (%v)", status, tc.status, out)
			}
			e, _ := out["error"].(map[string]any)
			msg, _ := e["message"].(string)
			if !strings.Contains(msg, tc.message) || e["code"] == "" {
				t.Fatalf("error %v, want a code and a message containing %q", out, tc.message)
			}
		})
	}
	// nothing was stored by any of them
	_, out := request(t, srv, "GET", "/v1/status", "")
	if out["pending"].(float64) != 0 {
		t.Fatalf("bad requests left %v pending deadlines", out["pending"])
	}
}

// A reminder handler that panics or errors never fails an API call; each
// failure is an alert that the API lists.
func TestFailOpenThroughTheAPI(t *testing.T) {
	runs := make(chan struct{}, 100)
	n := 0
	srv := newServer(t, func(_ context.Context, f scheduler.Firing) scheduler.Outcome {
		defer func() { runs <- struct{}{} }()
		n++
		if n%2 == 0 {
			panic("handler bug")
		}
		return scheduler.Failed(context.DeadlineExceeded)
	})
	for i := range 10 {
		status, out := request(t, srv, "POST", "/v1/reminders", `{"name": "r`+string(rune('a'+i))+`", "in": "0s", "sync": true}`)
		if status != 200 {
			t.Fatalf("reminder %d: status %d %v", i, status, out)
		}
	}
	for range 10 {
		<-runs
	}
	// the alerts are recorded after the run returns: poll briefly
	deadline := time.Now().Add(5 * time.Second)
	for {
		resp, err := srv.Client().Get(srv.URL + "/v1/alerts")
		if err != nil {
			t.Fatal(err)
		}
		var alerts []wakewheel.Alert
		json.NewDecoder(resp.Body).Decode(&alerts)
		resp.Body.Close()
		if len(alerts) == 10 {
			panics := 0
			for _, a := range alerts {
				if strings.Contains(a.Message, "panicked") {
					panics++
				}
			}
			if panics != 5 {
				t.Fatalf("%d of 10 alerts are panics, want 5: %+v", panics, alerts)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d alerts listed, want 10", len(alerts))
		}
		time.Sleep(10 * time.Millisecond)
	}
	if status, _ := request(t, srv, "GET", "/v1/status", ""); status != 200 {
		t.Fatalf("status after failing actions: %d", status)
	}
}
