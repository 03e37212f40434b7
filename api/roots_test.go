package api_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rs/zerolog"
	"github.com/wakewheel/wakewheel/api"
	"github.com/wakewheel/wakewheel/internal/clock"
	"github.com/wakewheel/wakewheel/internal/enginetest"
	"github.com/wakewheel/wakewheel/roots"
	"github.com/wakewheel/wakewheel/scheduler"
	"github.com/wakewheel/wakewheel/store"
)

// rootsServer serves the API with the roots routes over a real runner and
// manager, wired as the daemon wires them (traffic hook chained).
func rootsServer(t *testing.T, prevHook func(string)) (*httptest.Server, *roots.Manager, *store.DB) {
	t.Helper()
	db, eng := enginetest.Mem(t, scheduler.Options{RetryBase: 10 * time.Millisecond, RetryCap: 20 * time.Millisecond, RetryAttempts: 3}, time.Now())
	eng.Register(api.ReminderKind, func(context.Context, scheduler.Firing) scheduler.Outcome { return scheduler.Succeeded() })
	m, err := roots.Open(db, roots.Options{Logger: zerolog.Nop(), BurstSilence: 20 * time.Millisecond, PollInterval: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	m.Register(eng)
	runner := scheduler.Start(eng, clock.Real{})
	m.Attach(runner)
	s := api.NewServer(runner, db, api.Info{Version: "test"}, zerolog.Nop())
	api.RegisterRoots(s, m)
	s.OnRequest = func(verb string) {
		if prevHook != nil {
			prevHook(verb)
		}
		m.Traffic(verb)
	}
	srv := httptest.NewServer(s.Handler())
	t.Cleanup(func() { srv.Close(); m.Close(); runner.Stop() })
	return srv, m, db
}

func gitRepo(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for _, args := range [][]string{{"init", "-q"}, {"-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty", "-m", "A"}} {
		cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v %s", args, err, out)
		}
	}
	real, err := roots.CleanPath(dir)
	if err != nil {
		t.Fatal(err)
	}
	return real
}

// The routes answer the bodies the MCP adapter sends, with the documented
// codes.
func TestRootAndLeaseRoutes(t *testing.T) {
	srv, _, _ := rootsServer(t, nil)
	repo := gitRepo(t)
	code, body := request(t, srv, "POST", "/v1/roots", `{"path":"`+repo+`","skip":["vendor"]}`)
	if code != 200 || body["path"] != repo || body["armed"] != false || body["mode"] != "disarmed" {
		t.Fatalf("watch: %d %v", code, body)
	}
	code, body = request(t, srv, "POST", "/v1/roots/arm", `{"path":"`+repo+`"}`)
	if code != 200 || body["armed"] != true {
		t.Fatalf("arm: %d %v", code, body)
	}
	code, body = request(t, srv, "POST", "/v1/roots/arm", `{"path":"/no/such/root"}`)
	if code != 404 {
		t.Fatalf("arm unknown: %d %v", code, body)
	}
	code, body = request(t, srv, "POST", "/v1/roots", `{"path":"relative/../x","ingest":"true","bogus":1}`)
	if code != 400 {
		t.Fatalf("unknown field: %d %v", code, body)
	}
	code, body = request(t, srv, "POST", "/v1/roots/disarm", `{"path":"`+repo+`"}`)
	if code != 200 || body["mode"] != "disarmed" {
		t.Fatalf("disarm: %d %v", code, body)
	}
	resp, err := srv.Client().Get(srv.URL + "/v1/roots")
	if err != nil || resp.StatusCode != 200 {
		t.Fatal(resp, err)
	}
	resp.Body.Close()

	name := url.PathEscape(repo) // a root path: slashes escaped in one segment
	code, body = request(t, srv, "POST", "/v1/leases/"+name+"/acquire", `{"ttl":"5m0s"}`)
	if code != 200 || body["name"] != repo {
		t.Fatalf("acquire: %d %v", code, body)
	}
	code, body = request(t, srv, "POST", "/v1/leases/"+name+"/acquire", `{"ttl":"5m0s"}`)
	if code != 409 || body["error"].(map[string]any)["code"] != "lease_held" {
		t.Fatalf("second acquire: %d %v", code, body)
	}
	code, body = request(t, srv, "POST", "/v1/leases/x%2Fy/renew", `{"ttl":"1m30s"}`)
	if code != 404 {
		t.Fatalf("renew of a lease not held: %d %v", code, body)
	}
	code, body = request(t, srv, "POST", "/v1/leases/"+name+"/renew", `{"ttl":"1m30s"}`)
	if code != 200 {
		t.Fatalf("renew: %d %v", code, body)
	}
	code, body = request(t, srv, "POST", "/v1/leases/"+name+"/acquire", `{"ttl":"-1s"}`)
	if code != 400 {
		t.Fatalf("bad ttl: %d %v", code, body)
	}
	code, body = request(t, srv, "POST", "/v1/leases/"+name+"/release", `{}`)
	if code != 200 || body["released"] != true {
		t.Fatalf("release: %d %v", code, body)
	}
	code, body = request(t, srv, "DELETE", "/v1/roots?path="+url.QueryEscape(repo), "")
	if code != 200 || body["removed"] != true {
		t.Fatalf("unwatch: %d %v", code, body)
	}
}

// Fail-open: an ingest that fails every time (and so a drain that retries
// and alerts) never fails a request; the requests keep their answers while
// the failure shows in status and alerts.
func TestFailOpenErroringIngestNeverFailsARequest(t *testing.T) {
	srv, m, db := rootsServer(t, nil)
	repo := gitRepo(t)
	var runs atomic.Int64
	if err := m.SetHandlers(repo, roots.Handlers{Ingest: func(context.Context, roots.Batch) error {
		runs.Add(1)
		return errors.New("indexer is down")
	}}); err != nil {
		t.Fatal(err)
	}
	if code, body := request(t, srv, "POST", "/v1/roots", `{"path":"`+repo+`","arm":true}`); code != 200 {
		t.Fatal(code, body)
	}
	if err := os.WriteFile(filepath.Join(repo, "new.go"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		code, body := request(t, srv, "POST", "/v1/reminders", `{"name":"r","in":"1h"}`)
		if code != 200 {
			t.Fatalf("a request failed while the ingest fails: %d %v", code, body)
		}
		alerts, _ := db.Alerts(0)
		if len(alerts) > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no alert after %d ingest runs", runs.Load())
		}
		time.Sleep(20 * time.Millisecond)
	}
	sts, err := m.Statuses(context.Background())
	if err != nil || len(sts) != 1 || !strings.Contains(sts[0].LastError, "indexer is down") || sts[0].Backlog != 1 {
		t.Fatalf("status %+v %v", sts, err)
	}
}

// Fail-open: a broken traffic tick (a hook before ours that panics, and a
// root whose detection fails) never fails a request.
func TestFailOpenBrokenTickNeverFailsARequest(t *testing.T) {
	srv, m, _ := rootsServer(t, func(string) { panic("a broken hook") })
	repo := gitRepo(t)
	if _, err := m.Watch(context.Background(), roots.Spec{Path: repo, Arm: true}); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(filepath.Join(repo, ".git")); err != nil { // detection of a git root now fails
		t.Fatal(err)
	}
	if err := os.Chmod(repo, 0o000); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(repo, 0o755) })
	for i := range 50 {
		code, body := request(t, srv, "POST", "/v1/reminders", `{"name":"r","in":"1h"}`)
		if code != 200 {
			t.Fatalf("request %d failed: %d %v", i, code, body)
		}
	}
	resp, err := srv.Client().Get(srv.URL + "/v1/status")
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatal(resp, err)
	}
	resp.Body.Close()
}
