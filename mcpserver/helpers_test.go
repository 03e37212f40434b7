package mcpserver_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/rs/zerolog"
	"github.com/wakewheel/wakewheel/api"
	"github.com/wakewheel/wakewheel/internal/clock"
	"github.com/wakewheel/wakewheel/internal/enginetest"
	"github.com/wakewheel/wakewheel/mcpserver"
	"github.com/wakewheel/wakewheel/scheduler"
)

// connect serves the tools over an in-memory transport and returns the
// client's session.
func connect(t testing.TB, c mcpserver.Caller) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	srv := mcpserver.New(c, mcpserver.Options{Version: "test"})
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "test"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close(); ss.Close() })
	return cs
}

// daemonSocket serves the real socket API, over a real runner and a memory
// store, on a unix socket, and returns its path and its traffic counter
// (the server's OnRequest hook).
func daemonSocket(t *testing.T) (string, *atomic.Int64) {
	t.Helper()
	db, eng := enginetest.Mem(t, scheduler.Options{}, time.Now())
	eng.Register(api.ReminderKind, func(context.Context, scheduler.Firing) scheduler.Outcome { return scheduler.Succeeded() })
	runner := scheduler.Start(eng, clock.Real{})
	srv := api.NewServer(runner, db, api.Info{Version: "test"}, zerolog.Nop())
	traffic := new(atomic.Int64)
	srv.OnRequest = func(string) { traffic.Add(1) }
	dir, err := os.MkdirTemp("", "ww") // unix socket paths are short
	if err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(dir, "s.sock")
	done := make(chan error, 1)
	go func() { done <- srv.Serve(sock) }()
	for i := 0; ; i++ {
		if _, err := api.NewClient(sock).Status(context.Background()); err == nil {
			break
		} else if i > 500 {
			t.Fatalf("test daemon does not answer: %v", err)
		}
		time.Sleep(2 * time.Millisecond)
	}
	t.Cleanup(func() {
		srv.Shutdown(context.Background())
		<-done
		runner.Stop()
		os.RemoveAll(dir)
	})
	traffic.Store(0) // the readiness probe above is not the test's
	return sock, traffic
}

// call calls a tool with arguments and fails the test on a protocol error.
func call(t testing.TB, cs *mcp.ClientSession, tool string, args any) *mcp.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s %v: protocol error: %v", tool, args, err)
	}
	return res
}

// text joins a result's text content.
func text(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// decode unmarshals a successful result's structured content into v.
func decode(t testing.TB, res *mcp.CallToolResult, v any) {
	t.Helper()
	if res.IsError {
		t.Fatalf("tool error: %s", text(res))
	}
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("structured content %s: %v", b, err)
	}
}

// recorder is a Caller that records requests and answers each with an empty
// JSON object (an empty list for the list routes).
type recorder struct {
	mu   sync.Mutex
	reqs []recorded
	err  error
}

type recorded struct {
	method, path string
	body         string
}

func (r *recorder) Do(_ context.Context, method, path string, body, out any) error {
	b, _ := json.Marshal(body)
	r.mu.Lock()
	r.reqs = append(r.reqs, recorded{method, path, string(b)})
	err := r.err
	r.mu.Unlock()
	if err != nil {
		return err
	}
	answer := `{}`
	if strings.HasPrefix(path, "/v1/alerts") || strings.HasPrefix(path, "/v1/fires") {
		answer = `[]`
	}
	if out != nil {
		return json.Unmarshal([]byte(answer), out)
	}
	return nil
}

func (r *recorder) last() recorded {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.reqs) == 0 {
		return recorded{}
	}
	return r.reqs[len(r.reqs)-1]
}

// take returns the requests recorded so far and forgets them.
func (r *recorder) take() []recorded {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := r.reqs
	r.reqs = nil
	return out
}

func (r *recorder) count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.reqs)
}
