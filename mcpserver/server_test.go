package mcpserver_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/wakewheel/wakewheel/api"
)

var allTools = []string{
	"ack", "alerts", "arm", "deadlines", "digest", "disarm", "fires", "lease_acquire", "lease_release", "lease_renew",
	"park", "post", "remind", "resume", "status", "unwatch", "wait", "watch",
}

func TestEveryToolIsListedWithAnObjectSchema(t *testing.T) {
	cs := connect(t, &recorder{})
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
		schema, ok := tool.InputSchema.(map[string]any)
		if !ok || schema["type"] != "object" {
			t.Errorf("%s: input schema %v is not an object schema", tool.Name, tool.InputSchema)
		}
		if tool.Description == "" {
			t.Errorf("%s has no description", tool.Name)
		}
	}
	slices.Sort(names)
	if !slices.Equal(names, allTools) {
		t.Fatalf("tools %v, want %v", names, allTools)
	}
}

// TestRemindStatusDeadlinesAgainstTheRealAPI drives the engine tools
// against the real socket API over a unix socket.
func TestRemindStatusDeadlinesAgainstTheRealAPI(t *testing.T) {
	sock, traffic := daemonSocket(t)
	cs := connect(t, api.NewClient(sock))

	var rr api.ReminderResult
	decode(t, call(t, cs, "remind", map[string]any{"action": "push", "name": "review", "in": "1h", "message": "look at PR 7"}), &rr)
	if rr.Key != "reminder/review" || !rr.Pending || rr.At == nil || time.Until(*rr.At) < 59*time.Minute {
		t.Fatalf("push answered %+v", rr)
	}
	decode(t, call(t, cs, "remind", map[string]any{"action": "extend", "name": "quiet", "window": "10m", "cap": "1h", "sync": true}), &rr)
	if rr.Key != "reminder/quiet" || !rr.Synced {
		t.Fatalf("extend answered %+v", rr)
	}

	var dl struct{ Deadlines []api.Deadline }
	decode(t, call(t, cs, "deadlines", map[string]any{"prefix": "reminder/"}), &dl)
	if len(dl.Deadlines) != 2 || dl.Deadlines[0].Key != "reminder/quiet" || dl.Deadlines[0].Since == nil {
		t.Fatalf("deadlines %+v", dl.Deadlines)
	}

	var st api.Status
	decode(t, call(t, cs, "status", nil), &st)
	if st.Pending != 2 || st.ByKind[api.ReminderKind] != 2 {
		t.Fatalf("status %+v", st)
	}

	decode(t, call(t, cs, "remind", map[string]any{"action": "cancel", "name": "review"}), &rr)
	if !rr.Changed || rr.Pending {
		t.Fatalf("cancel answered %+v", rr)
	}
	var al struct{ Alerts []any }
	decode(t, call(t, cs, "alerts", map[string]any{"limit": 5}), &al)
	if al.Alerts == nil {
		t.Fatal("alerts: want an empty list, got none")
	}
	if n := traffic.Load(); n != 6 {
		t.Errorf("6 tool calls made %d requests the daemon counted as traffic", n)
	}
}

func TestDaemonDownIsAToolErrorForEveryTool(t *testing.T) {
	cs := connect(t, api.NewClient(t.TempDir()+"/none.sock"))
	for tool, args := range validArgs {
		if tool == "wait" {
			continue // see TestWaitOutlastsADownDaemon
		}
		res := call(t, cs, tool, args)
		if !res.IsError || !strings.Contains(text(res), "not running") || !strings.Contains(text(res), "wakewheel daemon") {
			t.Errorf("%s with the daemon down: IsError=%v %q", tool, res.IsError, text(res))
		}
	}
}

// TestWaitOutlastsADownDaemon: with the daemon down, wait is not an error
// answered in milliseconds (an agent would call again at once: a hot loop
// of turns) but waits out its timeout, retrying the socket, and says why.
func TestWaitOutlastsADownDaemon(t *testing.T) {
	cs := connect(t, api.NewClient(t.TempDir()+"/none.sock"))
	for _, args := range []map[string]any{
		{"lane": "dev", "timeout": "2s"},
		{"lane": "dev", "timeout": "2s", "open": true}, // the open is retried with the wait
	} {
		start := time.Now()
		res := call(t, cs, "wait", args)
		took := time.Since(start)
		if res.IsError || !strings.Contains(text(res), `"woke":false`) || !strings.Contains(text(res), "not running") {
			t.Fatalf("wait %v with the daemon down: IsError=%v %q", args, res.IsError, text(res))
		}
		if took < 2*time.Second || took > 10*time.Second {
			t.Fatalf("wait %v with the daemon down returned after %s, want its 2s timeout", args, took)
		}
	}
}

// validArgs are arguments each tool accepts.
var validArgs = map[string]map[string]any{
	"status":        nil,
	"deadlines":     {},
	"alerts":        {},
	"fires":         {},
	"remind":        {"action": "push", "name": "n", "in": "1s"},
	"post":          {"lane": "dev", "id": "x1", "class": "peer", "body": "hello"},
	"wait":          {"lane": "dev", "timeout": "1s"},
	"digest":        {"lane": "dev"},
	"ack":           {"lane": "dev", "upto": 3},
	"park":          {"lane": "dev"},
	"resume":        {"lane": "dev"},
	"watch":         {"path": "/tmp/repo"},
	"unwatch":       {"path": "/tmp/repo"},
	"arm":           {"path": "/tmp/repo"},
	"disarm":        {"path": "/tmp/repo"},
	"lease_acquire": {"name": "build", "ttl": "1m"},
	"lease_renew":   {"name": "build"},
	"lease_release": {"name": "build"},
}

func TestValidArgsCoverEveryTool(t *testing.T) {
	for _, tool := range allTools {
		if _, ok := validArgs[tool]; !ok {
			t.Errorf("no valid arguments for %s", tool)
		}
	}
}

func TestBadArgumentsAreToolErrorsAndReachNoRoute(t *testing.T) {
	rec := &recorder{}
	cs := connect(t, rec)
	cases := []struct {
		tool string
		args map[string]any
		want string
	}{
		{"remind", map[string]any{"action": "push", "name": "n"}, "exactly one of in"},
		{"remind", map[string]any{"action": "push", "name": "n", "in": "1s", "window": "1s"}, "belong to extend"},
		{"remind", map[string]any{"action": "fire", "name": "n", "in": "1s"}, "action"},
		{"remind", map[string]any{"action": "extend", "name": "n"}, "needs window"},
		{"remind", map[string]any{"action": "cancel", "name": "n", "in": "1s"}, "only name"},
		{"remind", map[string]any{"action": "cancel", "name": ".."}, "not a name"},
		{"remind", map[string]any{"action": "push", "in": "1s"}, "name"},
		{"remind", map[string]any{"action": "push", "name": "n", "in": "1s", "key": "burst/x"}, "key"},
		{"remind", map[string]any{"action": "push", "name": "n", "in": 5}, "in"},
		{"deadlines", map[string]any{"prefix": 3}, "prefix"},
		{"alerts", map[string]any{"limit": -1}, "limit"},
		{"post", map[string]any{"lane": "dev", "id": "x", "class": "urgent", "body": "b"}, "class"},
		{"post", map[string]any{"lane": "", "id": "x", "class": "peer", "body": "b"}, "lane is required"},
		{"wait", map[string]any{"lane": "dev", "timeout": "1h"}, "timeout"},
		{"wait", map[string]any{"lane": "a\nb"}, "control character"},
		{"ack", map[string]any{"lane": "dev", "upto": -1}, "upto"},
		{"ack", map[string]any{"lane": "dev"}, "upto"},
		{"ack", map[string]any{"lane": "dev", "upto": 0}, "upto"},
		{"watch", map[string]any{"path": "/r", "ingest": "rm -rf ~"}, "ingest"},
		{"lease_acquire", map[string]any{"name": "b", "ttl": "-1s"}, "ttl"},
		{"lease_release", map[string]any{"name": "b", "ttl": "1s"}, `unknown argument "ttl"`}, // release lists no ttl: the schema refuses one
		{"status", map[string]any{"verbose": true}, "verbose"},
	}
	for _, tc := range cases {
		before := rec.count()
		res := call(t, cs, tc.tool, tc.args)
		if !res.IsError || !strings.Contains(text(res), tc.want) {
			t.Errorf("%s %v: IsError=%v %q, want an error mentioning %q", tc.tool, tc.args, res.IsError, text(res), tc.want)
		}
		if rec.count() != before {
			t.Errorf("%s %v: a rejected call reached the daemon: %+v", tc.tool, tc.args, rec.last())
		}
	}
}

// TestArgumentsStayInTheirRoute checks the requests the tools send: the
// exact contract, and names that cannot address another route.
func TestArgumentsStayInTheirRoute(t *testing.T) {
	rec := &recorder{}
	cs := connect(t, rec)
	cases := []struct {
		tool         string
		args         map[string]any
		method, path string
		body         string
	}{
		{"remind", map[string]any{"action": "cancel", "name": "a/b c", "sync": true}, "DELETE", "/v1/reminders/a%2Fb%20c?sync=true", "null"},
		{"remind", map[string]any{"action": "extend", "name": "q", "window": "1m"}, "POST", "/v1/reminders", `{"name":"q","window":"1m"}`},
		{"deadlines", map[string]any{"prefix": "reminder/&x"}, "GET", "/v1/deadlines?prefix=reminder%2F%26x&limit=100", "null"},
		{"post", map[string]any{"lane": "dev", "id": "i", "class": "human", "body": "b", "locator": map[string]any{"repo": "r", "sha": "abc"}},
			"POST", "/v1/obligations", `{"lane":"dev","class":"human","id":"i","body":"b","locator":{"repo":"r","sha":"abc"}}`},
		{"post", map[string]any{"lane": "new", "id": "i", "class": "peer", "body": "b", "create": true},
			"POST", "/v1/obligations", `{"lane":"new","class":"peer","id":"i","body":"b","create":true}`},
		{"wait", map[string]any{"lane": "../admin", "who": "agent-1"}, "GET", "/v1/lanes/..%2Fadmin/wait?timeout=20s&who=agent-1", "null"},
		{"wait", map[string]any{"lane": "dev", "after": "dev@3", "timeout": "5s"}, "GET", "/v1/lanes/dev/wait?after=dev%403&timeout=5s", "null"},
		{"digest", map[string]any{"lane": "dev"}, "GET", "/v1/lanes/dev/digest", "null"},
		{"ack", map[string]any{"lane": "dev", "upto": 7}, "POST", "/v1/lanes/dev/ack", `{"upto":7}`},
		{"ack", map[string]any{"lane": "dev", "upto": 7, "action": "pushed abc123"}, "POST", "/v1/lanes/dev/ack", `{"upto":7,"action":"pushed abc123"}`},
		{"park", map[string]any{"lane": "dev"}, "POST", "/v1/lanes/dev/park", "null"},
		{"resume", map[string]any{"lane": "dev", "who": "a"}, "POST", "/v1/lanes/dev/resume", `{"who":"a"}`},
		{"watch", map[string]any{"path": "/src/repo/", "skip": []string{"vendor"}}, "POST", "/v1/roots", `{"path":"/src/repo","skip":["vendor"],"by":"agent"}`},
		{"watch", map[string]any{"path": "/src/repo", "arm": true}, "POST", "/v1/roots", `{"path":"/src/repo","arm":true,"by":"agent"}`},
		{"unwatch", map[string]any{"path": "/src/a b"}, "DELETE", "/v1/roots?by=agent&path=%2Fsrc%2Fa+b", "null"},
		{"arm", map[string]any{"path": "/src/repo"}, "POST", "/v1/roots/arm", `{"path":"/src/repo"}`},
		{"disarm", map[string]any{"path": "/src/repo"}, "POST", "/v1/roots/disarm", `{"path":"/src/repo"}`},
		{"lease_acquire", map[string]any{"name": "build"}, "POST", "/v1/leases/build/acquire", `{"ttl":"5m0s"}`},
		{"lease_renew", map[string]any{"name": "x/y", "ttl": "90s"}, "POST", "/v1/leases/x%2Fy/renew", `{"ttl":"1m30s"}`},
		{"lease_release", map[string]any{"name": "build"}, "POST", "/v1/leases/build/release", `{}`},
	}
	for _, tc := range cases {
		res := call(t, cs, tc.tool, tc.args)
		if res.IsError {
			t.Errorf("%s %v: %s", tc.tool, tc.args, text(res))
			continue
		}
		got := rec.last()
		if tc.tool == "wait" { // the wait, then its turn for the ledger
			turn := got
			rec.mu.Lock()
			got = rec.reqs[len(rec.reqs)-2]
			rec.mu.Unlock()
			if turn.method != "POST" || !strings.HasPrefix(turn.path, "/v1/lanes/") || !strings.HasSuffix(turn.path, "/agent") || !strings.Contains(turn.body, `"mode":"mcp_wait"`) {
				t.Errorf("wait %v: its turn was sent as %s %s %s", tc.args, turn.method, turn.path, turn.body)
			}
		}
		if got.method != tc.method || got.path != tc.path || got.body != tc.body {
			t.Errorf("%s %v sent %s %s %s\nwant %s %s %s", tc.tool, tc.args, got.method, got.path, got.body, tc.method, tc.path, tc.body)
		}
	}
}

// TestSparseAnswersStillMatchTheOutputSchemas: an answer with fields
// missing (an older daemon) is still a valid result, not a protocol error.
func TestSparseAnswersStillMatchTheOutputSchemas(t *testing.T) {
	cs := connect(t, &recorder{})
	for tool, args := range validArgs {
		if res := call(t, cs, tool, args); res.IsError {
			t.Errorf("%s: %s", tool, text(res))
		}
	}
}

func TestDaemonErrorsAreExplained(t *testing.T) {
	rec := &recorder{}
	cs := connect(t, rec)
	var notFound api.Error
	notFound.Err.Code, notFound.Err.Message = "not_found", "no route POST /v1/obligations; see `wakewheel --help`"
	rec.err = &notFound
	if res := call(t, cs, "post", validArgs["post"]); !res.IsError || !strings.Contains(text(res), "does not offer post") {
		t.Errorf("no route: %q", text(res))
	}
	var bad api.Error
	bad.Err.Code, bad.Err.Message = "bad_request", `reminder "n": in="x" is not a non-negative duration`
	rec.err = &bad
	if res := call(t, cs, "remind", validArgs["remind"]); !res.IsError || !strings.Contains(text(res), "non-negative duration (bad_request)") {
		t.Errorf("bad request: %q", text(res))
	}
	rec.err = fmt.Errorf("api: GET /v1/status: %w", errors.New("connection reset"))
	if res := call(t, cs, "status", nil); !res.IsError || !strings.Contains(text(res), "connection reset") {
		t.Errorf("transport error: %q", text(res))
	}
}

func TestObligationToolsExplainAMissingRoute(t *testing.T) {
	sock, _ := daemonSocket(t)
	cs := connect(t, api.NewClient(sock))
	res := call(t, cs, "digest", map[string]any{"lane": "dev"})
	if !res.IsError {
		// the obligations routes exist: nothing to explain
		return
	}
	if !strings.Contains(text(res), "does not offer digest") && !strings.Contains(text(res), http.StatusText(http.StatusNotFound)) {
		t.Errorf("digest without the route: %q", text(res))
	}
}

// Every tool says what it answers (an output schema), post takes no
// required id, and lease_release lists no ttl it would refuse.
func TestEveryToolHasAnOutputSchemaAndListsOnlyWhatItTakes(t *testing.T) {
	cs := connect(t, &recorder{})
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range res.Tools {
		if out, ok := tool.OutputSchema.(map[string]any); !ok || out["type"] != "object" {
			t.Errorf("%s has no object output schema: %v", tool.Name, tool.OutputSchema)
		}
		in, _ := tool.InputSchema.(map[string]any)
		props, _ := in["properties"].(map[string]any)
		required, _ := in["required"].([]any)
		switch tool.Name {
		case "post":
			for _, r := range required {
				if r == "id" {
					t.Errorf("post requires id: %v", required)
				}
			}
		case "lease_release":
			if _, ok := props["ttl"]; ok {
				t.Errorf("lease_release lists a ttl it does not take: %v", props)
			}
		}
	}
}

// An argument the input schema refuses is explained in the caller's words,
// naming the tool and the argument, not in the validator's
// ("minimum: -5/1 is less than 0.000000").
func TestArgumentErrorsArePlainWords(t *testing.T) {
	cs := connect(t, &recorder{})
	for _, tc := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"deadlines", map[string]any{"limit": -5}, "deadlines: limit is -5: it must be at least 0"},
		{"deadlines", map[string]any{"prefix": 5}, "deadlines: prefix must be of type string, not integer"},
		{"ack", map[string]any{}, `ack: missing required argument "lane", "upto"`},
		{"status", map[string]any{"verbose": true}, `status: unknown argument "verbose"`},
	} {
		got := text(call(t, cs, tc.tool, tc.args))
		if !strings.HasPrefix(got, tc.want) || strings.Contains(got, "validating") || strings.Contains(got, "0.000000") {
			t.Errorf("%s %v: %q, want %q", tc.tool, tc.args, got, tc.want)
		}
	}
}
