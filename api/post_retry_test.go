package api_test

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/wakewheel/wakewheel/api"
	"github.com/wakewheel/wakewheel/wakes"
)

// lossyProxy serves a unix socket in front of d. Each of the first drops
// connections has its request delivered to the daemon and its answer thrown
// away (the connection closed instead): a reset after the daemon stored
// the post, the case where a retry could duplicate. Later connections are
// forwarded whole.
func lossyProxy(t *testing.T, d *daemon, drops int32) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "ww")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	sock := filepath.Join(dir, "proxy.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	var dropped atomic.Int32
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func(c net.Conn) {
				defer c.Close()
				br := bufio.NewReader(c)
				for {
					req, err := http.ReadRequest(br)
					if err != nil {
						return
					}
					req.RequestURI = ""
					req.URL.Scheme, req.URL.Host = "http", "wakewheel"
					resp, err := d.raw.Do(req)
					if err != nil {
						return
					}
					body, _ := io.ReadAll(resp.Body)
					resp.Body.Close()
					if dropped.Add(1) <= drops {
						return // stored, but the answer is lost
					}
					resp.Body = io.NopCloser(bytes.NewReader(body))
					resp.ContentLength = int64(len(body))
					if err := resp.Write(c); err != nil {
						return
					}
				}
			}(c)
		}
	}()
	return sock
}

// TestPostRetriedOnce: the answers of the first two attempts are lost after
// the daemon stored the post; the client retries with the id it made, the
// post is stored once, and the caller sees a plain success.
func TestPostRetriedOnce(t *testing.T) {
	d := startDaemon(t)
	ctx := context.Background()
	c := api.NewClient(lossyProxy(t, d, 2))
	res, err := c.Post(ctx, api.PostRequest{Lane: "dev", Class: "human", Body: "hello", Create: true})
	if err != nil {
		t.Fatalf("post through a lossy connection: %v", err)
	}
	if res.Duplicate || res.Obligation.Seq != 1 || res.Obligation.ID == "" {
		t.Errorf("result %+v", res)
	}
	if n := obligations(t, d); n != 1 {
		t.Fatalf("%d obligations stored for one post", n)
	}
	// A caller's own id that already exists is still reported a duplicate.
	again, err := d.client.Post(ctx, api.PostRequest{Lane: "dev", Class: "human", Body: "hello", ID: res.Obligation.ID})
	if err != nil || !again.Duplicate {
		t.Errorf("re-post of a caller's id: %+v, %v", again, err)
	}
}

// TestPostRetryGivesUp: a daemon that never answers is reported after the
// retries, and nothing is stored more than once.
func TestPostRetryGivesUp(t *testing.T) {
	d := startDaemon(t)
	c := api.NewClient(lossyProxy(t, d, 100))
	if _, err := c.Post(context.Background(), api.PostRequest{Lane: "dev", Class: "human", Body: "x", Create: true}); err == nil {
		t.Fatal("a post whose every answer is lost succeeded")
	}
	if n := obligations(t, d); n != 1 {
		t.Fatalf("%d obligations stored for %d attempts of one post", n, len(api.PostRetryDelays)+1)
	}
}

// obligations counts the obligation records in d's store.
func obligations(t *testing.T, d *daemon) int {
	t.Helper()
	n := 0
	if err := d.db.Scan(wakes.RecordNS, "o/", func(string, []byte) error { n++; return nil }); err != nil {
		t.Fatal(err)
	}
	return n
}
