package api_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rs/zerolog"
	"github.com/wakewheel/wakewheel/api"
	"github.com/wakewheel/wakewheel/internal/clock"
	"github.com/wakewheel/wakewheel/internal/enginetest"
	ob "github.com/wakewheel/wakewheel/obligations"
	"github.com/wakewheel/wakewheel/scheduler"
	"github.com/wakewheel/wakewheel/store"
	"github.com/wakewheel/wakewheel/wakes"
)

// daemon is a server with the obligations routes on a unix socket, wired
// as cmd/wakewheel wires it.
type daemon struct {
	db      *store.DB
	client  *api.Client
	raw     *http.Client
	sock    string
	traffic atomic.Int64
}

func startDaemon(t *testing.T) *daemon {
	t.Helper()
	db, err := store.Open(filepath.Join(t.TempDir(), "store"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	pol := ob.DefaultPolicies()
	for c, p := range pol {
		p.MaxBody = 1024
		pol[c] = p
	}
	svc, eng := enginetest.Wakes(t, db, pol, time.Now())
	runner := scheduler.Start(eng, clock.Real{})
	svc.Attach(runner)
	d := &daemon{db: db}
	srv := api.NewServer(runner, db, api.Info{Version: "test"}, zerolog.Nop())
	srv.OnRequest = func(string) { d.traffic.Add(1) }
	api.RegisterObligations(srv, svc)
	dir, err := os.MkdirTemp("", "ww")
	if err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(dir, "s.sock")
	go srv.Serve(sock)
	t.Cleanup(func() {
		srv.Shutdown(context.Background())
		svc.Close()
		runner.Stop()
		db.Close()
		os.RemoveAll(dir)
	})
	d.client, d.sock = api.NewClient(sock), sock
	d.raw = &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
		var dl net.Dialer
		return dl.DialContext(ctx, "unix", sock)
	}}}
	for i := 0; ; i++ {
		if _, err := d.client.Lanes(context.Background()); err == nil {
			return d
		} else if i > 500 {
			t.Fatal(err)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

func (d *daemon) count(t *testing.T, ns string) int {
	n := 0
	if err := d.db.Scan(ns, "", func(string, []byte) error { n++; return nil }); err != nil {
		t.Fatal(err)
	}
	return n
}

func TestObligationsAPIRoundTrip(t *testing.T) {
	d := startDaemon(t)
	ctx := context.Background()
	c := d.client
	if _, err := c.OpenLane(ctx, "dev"); err != nil {
		t.Fatal(err)
	}
	p1, err := c.Post(ctx, api.PostRequest{Lane: "dev", Class: "human", ID: "h1", Body: "can you look at the flaky test?"})
	if err != nil || p1.Duplicate || p1.Obligation.Seq != 1 {
		t.Fatalf("post: %+v %v", p1, err)
	}
	p2, err := c.Post(ctx, api.PostRequest{Lane: "dev", Class: "peer", ID: "p1", Body: "CI is red",
		Locator: ob.Locator{Repo: "wakewheel", SHA: "0a1b2c"}})
	if err != nil || p2.Obligation.Seq != 2 {
		t.Fatalf("post peer: %+v %v", p2, err)
	}
	dup, err := c.Post(ctx, api.PostRequest{Lane: "dev", Class: "human", ID: "h1", Body: "changed"})
	if err != nil || !dup.Duplicate || dup.Obligation.Seq != 1 || dup.Obligation.Body != p1.Obligation.Body {
		t.Fatalf("re-post: %+v %v", dup, err)
	}
	res, err := c.WaitOnce(ctx, "dev", "agent", "", time.Second)
	if err != nil || !res.Woke || res.Digest.WakeID != "dev@2" || len(res.Digest.Messages) != 2 {
		t.Fatalf("wait: %+v %v", res, err)
	}
	if _, err := c.Ack(ctx, "dev", 2, "fixed-test"); err != nil {
		t.Fatal(err)
	}
	dg, err := c.Digest(ctx, "dev", "")
	if err != nil || !dg.Noop {
		t.Fatalf("digest after ack: %+v %v", dg, err)
	}
	cp, err := c.Park(ctx, "dev")
	if err != nil || cp.Consumed != 2 {
		t.Fatalf("park: %+v %v", cp, err)
	}
	if _, err := c.Resume(ctx, "dev", "agent", nil); err != nil {
		t.Fatal(err)
	}
	page, err := c.Ledger(ctx, 0, 100)
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[ob.EntryKind]int{}
	for _, e := range page.Entries {
		kinds[e.Kind]++
	}
	if kinds[ob.EntryPost] != 2 || kinds[ob.EntryDelivery] != 1 || kinds[ob.EntryConsumption] != 2 || kinds[ob.EntryAction] != 2 {
		t.Fatalf("ledger %v", kinds)
	}
	if n := d.traffic.Load(); n < 9 {
		t.Errorf("traffic hook saw %d requests, want every one", n)
	}
}

// TestObligationsAPIBadInput: every bad request gets a clear JSON error
// with the right status and code, and stores nothing.
func TestObligationsAPIBadInput(t *testing.T) {
	d := startDaemon(t)
	ctx := context.Background()
	if _, err := d.client.OpenLane(ctx, "dev"); err != nil {
		t.Fatal(err)
	}
	if _, err := d.client.Post(ctx, api.PostRequest{Lane: "dev", Class: "human", ID: "ok", Body: "delivered"}); err != nil {
		t.Fatal(err)
	}
	records, ledger := d.count(t, wakes.RecordNS), d.count(t, wakes.LedgerNS)
	traffic := d.traffic.Load()
	big := strings.Repeat("x", 1025)
	cases := []struct {
		name, method, path, body string
		status                   int
		code, says               string
	}{
		{"unknown lane", "POST", "/v1/obligations", `{"lane":"nobody","class":"human","id":"a","body":"hi"}`, 404, "unknown_lane", `unknown lane "nobody"`},
		{"unknown class", "POST", "/v1/obligations", `{"lane":"dev","class":"pager","id":"a","body":"hi"}`, 400, "unknown_class", "valid: human, peer, digest, alert"},
		{"missing locator", "POST", "/v1/obligations", `{"lane":"dev","class":"peer","id":"a","body":"look"}`, 400, "missing_locator", "needs repo plus at least one of issue, sha, file"},
		{"weak locator", "POST", "/v1/obligations", `{"lane":"dev","class":"digest","id":"a","body":"x","locator":{"repo":"r"}}`, 400, "missing_locator", "got repo=r"},
		{"oversized body", "POST", "/v1/obligations", `{"lane":"dev","class":"human","id":"a","body":"` + big + `"}`, 413, "body_too_large", "at most 1024 bytes"},
		{"oversized request", "POST", "/v1/obligations", `{"lane":"dev","class":"human","id":"a","body":"` + strings.Repeat("x", api.MaxRequestBytes) + `"}`, 413, "too_large", "exceeds"},
		{"malformed JSON", "POST", "/v1/obligations", `{"lane":"dev",`, 400, "bad_request", "malformed JSON"},
		{"not an object", "POST", "/v1/obligations", `["dev"]`, 400, "bad_request", "malformed JSON"},
		{"unknown field", "POST", "/v1/obligations", `{"lane":"dev","class":"human","id":"a","body":"x","hook":"rm -rf /"}`, 400, "bad_request", `unknown field "hook"`},
		{"two values", "POST", "/v1/obligations", `{"lane":"dev","class":"human","id":"a","body":"x"} {}`, 400, "bad_request", "more than one JSON value"},
		{"bad lane", "POST", "/v1/obligations", `{"lane":"a/b","class":"human","id":"a","body":"x","create":true}`, 400, "bad_lane", "'/' is not allowed"},
		{"bad id", "POST", "/v1/obligations", `{"lane":"dev","class":"human","id":"two words","body":"x"}`, 400, "bad_id", "without spaces"},
		{"open bad lane", "POST", "/v1/lanes", `{"lane":""}`, 400, "bad_lane", "empty"},
		{"ack without upto", "POST", "/v1/lanes/dev/ack", `{}`, 400, "bad_request", "upto >= 1"},
		{"ack past received", "POST", "/v1/lanes/dev/ack", `{"upto":1}`, 409, "ack_past_received", "RECEIVED is 0"},
		{"ack unknown lane", "POST", "/v1/lanes/nobody/ack", `{"upto":1}`, 404, "unknown_lane", "nobody"},
		{"digest unknown lane", "GET", "/v1/lanes/nobody/digest", ``, 404, "unknown_lane", "nobody"},
		{"wait bad timeout", "GET", "/v1/lanes/dev/wait?timeout=soon", ``, 400, "bad_request", "timeout"},
		{"wait bad lane", "GET", "/v1/lanes/a%20b/wait?timeout=1ms", ``, 400, "bad_lane", "not allowed"},
		{"resume never parked", "POST", "/v1/lanes/dev/resume", `{}`, 409, "bad_checkpoint", "never parked"},
		{"park unknown lane", "POST", "/v1/lanes/nobody/park", ``, 404, "unknown_lane", "nobody"},
		{"ledger bad limit", "GET", "/v1/ledger?limit=-1", ``, 400, "bad_request", "limit"},
	}
	for _, c := range cases {
		req, _ := http.NewRequest(c.method, "http://wakewheel"+c.path, strings.NewReader(c.body))
		resp, err := d.raw.Do(req)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		data, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		var e api.Error
		if err := json.Unmarshal(data, &e); err != nil || resp.StatusCode != c.status || e.Err.Code != c.code ||
			!strings.Contains(e.Err.Message, c.says) {
			t.Errorf("%s: HTTP %d %s; want %d %s saying %q", c.name, resp.StatusCode, data, c.status, c.code, c.says)
		}
	}
	if n, m := d.count(t, wakes.RecordNS), d.count(t, wakes.LedgerNS); n != records || m != ledger {
		t.Errorf("bad input stored something: records %d -> %d, ledger entries %d -> %d", records, n, ledger, m)
	}
	if got := d.traffic.Load() - traffic; got != int64(len(cases)) {
		t.Errorf("traffic hook saw %d of %d rejected requests", got, len(cases))
	}
	// The client's error and exit code for a rejected request.
	_, err := d.client.Post(ctx, api.PostRequest{Lane: "dev", Class: "pager", Body: "x"})
	var ae *api.Error
	if !errors.As(err, &ae) || ae.Err.Code != "unknown_class" || api.ExitCode(err) != 2 {
		t.Errorf("client error %v (exit %d), want unknown_class, exit 2", err, api.ExitCode(err))
	}
}

func TestObligationsAPIConcurrentPostsAndWaiters(t *testing.T) {
	d := startDaemon(t)
	ctx := context.Background()
	lanes := []string{"a", "b", "c"}
	for _, l := range lanes {
		d.client.OpenLane(ctx, l)
	}
	var wg sync.WaitGroup
	got := make([]int, len(lanes))
	for i, l := range lanes { // one consumer per lane, acking what it reads
		wg.Add(1)
		go func() {
			defer wg.Done()
			for got[i] < 40 {
				res, err := d.client.WaitOnce(ctx, l, "", "", 5*time.Second)
				if err != nil || !res.Woke {
					t.Errorf("wait %s: %+v %v", l, res, err)
					return
				}
				if _, err := d.client.Ack(ctx, l, res.Digest.Head, ""); err != nil {
					t.Error(err)
					return
				}
				got[i] = int(res.Digest.Head)
			}
		}()
	}
	for p := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range 15 {
				l := lanes[(p+j)%3]
				if _, err := d.client.Post(ctx, api.PostRequest{Lane: l, Class: "human", ID: fmt.Sprint(p, "-", j), Body: "x"}); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	wg.Wait()
	st, _ := d.client.Lanes(ctx)
	for _, s := range st {
		if s.Consumed != s.Head || s.Head != 40 {
			t.Errorf("lane %s: head %d consumed %d, want 40 and 40", s.Lane, s.Head, s.Consumed)
		}
	}
}
