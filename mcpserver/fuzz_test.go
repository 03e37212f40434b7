package mcpserver_test

import (
	"context"
	"encoding/json"
	"net/url"
	"path"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// routes are the request shapes the tools may send: method, escaped path
// pattern ("*" is one segment), and whether a query may follow.
var routes = []struct {
	method, pattern string
}{
	{"GET", "/v1/status"},
	{"GET", "/v1/deadlines"},
	{"GET", "/v1/alerts"},
	{"GET", "/v1/fires"},
	{"POST", "/v1/reminders"},
	{"DELETE", "/v1/reminders/*"},
	{"POST", "/v1/obligations"},
	{"POST", "/v1/lanes"},
	{"GET", "/v1/lanes/*/wait"},
	{"GET", "/v1/lanes/*/digest"},
	{"POST", "/v1/lanes/*/ack"},
	{"POST", "/v1/lanes/*/park"},
	{"POST", "/v1/lanes/*/resume"},
	{"POST", "/v1/lanes/*/agent"}, // a wait's turn, for the ledger
	{"POST", "/v1/roots"},
	{"DELETE", "/v1/roots"},
	{"POST", "/v1/roots/arm"},
	{"POST", "/v1/roots/disarm"},
	{"POST", "/v1/leases/*/acquire"},
	{"POST", "/v1/leases/*/renew"},
	{"POST", "/v1/leases/*/release"},
}

// FuzzToolArguments calls every tool with arbitrary JSON arguments. No call
// may panic or end in a protocol error, and every request that reaches the
// daemon must be one of the routes above, with path segments that survive
// path cleaning (an argument can never address another route) and a
// reminder body that names no key or kind.
func FuzzToolArguments(f *testing.F) {
	for tool, args := range validArgs {
		b, _ := json.Marshal(args)
		f.Add(tool, b)
	}
	f.Add("wait", []byte(`{"lane":"../../v1/reminders","timeout":"0s"}`))
	f.Add("remind", []byte(`{"action":"cancel","name":"%2e%2e"}`))
	f.Add("lease_renew", []byte(`{"name":"a?b#c","ttl":"9223372036854775807ns"}`))
	f.Add("watch", []byte(`{"path":"rel/../../x","skip":[""]}`))
	f.Add("ack", []byte(`{"lane":"l","upto":1e30}`))
	f.Add("post", []byte(`[1,2]`))

	rec := &recorder{}
	cs := connect(f, rec)
	f.Fuzz(func(t *testing.T, tool string, args []byte) {
		if !json.Valid(args) {
			return // the client cannot even send it
		}
		if !slices.Contains(allTools, tool) {
			tool = allTools[len(tool)%len(allTools)]
		}
		rec.take()
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: json.RawMessage(args)})
		if err != nil {
			t.Fatalf("%s %s: protocol error: %v", tool, args, err)
		}
		if res.IsError && text(res) == "" {
			t.Fatalf("%s %s: an error result without a message", tool, args)
		}
		for _, r := range rec.take() {
			checkRequest(t, tool, args, r)
		}
	})
}

func checkRequest(t *testing.T, tool string, args []byte, r recorded) {
	t.Helper()
	u, err := url.Parse("http://wakewheel" + r.path)
	if err != nil {
		t.Fatalf("%s %s: sent an unparsable path %q: %v", tool, args, r.path, err)
	}
	escaped := u.EscapedPath()
	if u.Fragment != "" || path.Clean(escaped) != escaped {
		t.Fatalf("%s %s: path %q does not survive cleaning", tool, args, r.path)
	}
	matched := false
	for _, rt := range routes {
		if rt.method == r.method && matches(rt.pattern, escaped) {
			matched = true
			break
		}
	}
	if !matched {
		t.Fatalf("%s %s: sent %s %s, which is no tool route", tool, args, r.method, r.path)
	}
	if r.method == "POST" && escaped == "/v1/reminders" {
		var body map[string]any
		if err := json.Unmarshal([]byte(r.body), &body); err != nil {
			t.Fatalf("%s %s: reminder body %s: %v", tool, args, r.body, err)
		}
		for k := range body {
			if !slices.Contains([]string{"name", "in", "at", "window", "cap", "message", "sync"}, k) {
				t.Fatalf("%s %s: reminder body carries %q", tool, args, k)
			}
		}
	}
	if strings.HasPrefix(escaped, "/v1/roots") && (strings.Contains(r.body, `"ingest"`) || strings.Contains(r.body, `"reconcile"`)) {
		t.Fatalf("%s %s: a root request carries a command: %s", tool, args, r.body)
	}
}

// matches reports whether an escaped path fits pattern, where "*" is one
// non-empty segment.
func matches(pattern, escaped string) bool {
	ps, es := strings.Split(pattern, "/"), strings.Split(escaped, "/")
	if len(ps) != len(es) {
		return false
	}
	for i := range ps {
		if ps[i] == "*" && es[i] != "" || ps[i] == es[i] {
			continue
		}
		return false
	}
	return true
}
