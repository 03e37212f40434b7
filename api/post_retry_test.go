package api_test

import (
	"bufio"
	"context"
	"encoding/binary"
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
// posts has its request delivered to the daemon and its answer thrown away
// (the connection closed instead): a reset after the daemon stored the
// post, the case where a retry could duplicate. Later posts are forwarded
// whole. Posts come on post streams (poststream.go): the proxy passes the
// upgrade and its 101, then forwards frame by frame.
func lossyProxy(t *testing.T, d *daemon, drops int32) string {
	t.Helper()
	var dropped atomic.Int32
	return serveProxy(t, d, func(c, up net.Conn, br, ur *bufio.Reader, req *http.Request) {
		if req.URL.Path != api.PostStreamPath {
			return // the client posts on streams only
		}
		if req.Write(up) != nil {
			return
		}
		resp, err := http.ReadResponse(ur, req)
		if err != nil || resp.StatusCode != http.StatusSwitchingProtocols || resp.Write(c) != nil {
			return
		}
		postHdr, answerHdr := 4, 6
		if req.Header.Get("Upgrade") == api.PostStreamPipelined {
			postHdr, answerHdr = 8, 10
		}
		for {
			post, err := frame(br, postHdr)
			if err != nil || !write(up, post) {
				return
			}
			answer, err := frame(ur, answerHdr)
			if err != nil || dropped.Add(1) <= drops || !write(c, answer) {
				return // stored, but the answer is lost
			}
		}
	})
}

// serveProxy serves a unix socket in front of d and returns its path: for
// each connection accepted it dials d, reads the client's first request
// and hands both connections, their readers and the request to handle;
// both connections are closed once handle returns.
func serveProxy(t *testing.T, d *daemon, handle func(c, up net.Conn, br, ur *bufio.Reader, req *http.Request)) string {
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
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func(c net.Conn) {
				defer c.Close()
				up, err := net.Dial("unix", d.sock)
				if err != nil {
					return
				}
				defer up.Close()
				br, ur := bufio.NewReader(c), bufio.NewReader(up)
				req, err := http.ReadRequest(br)
				if err != nil {
					return
				}
				handle(c, up, br, ur, req)
			}(c)
		}
	}()
	return sock
}

// frame reads one frame of the post stream: a header of size bytes (4 for
// a post, 6 for an answer; pipelined 8 and 10) whose first four are the length of what
// follows.
func frame(r *bufio.Reader, size int) ([]byte, error) {
	hdr := make([]byte, size)
	if _, err := io.ReadFull(r, hdr); err != nil {
		return nil, err
	}
	body := make([]byte, binary.BigEndian.Uint32(hdr))
	if _, err := io.ReadFull(r, body); err != nil {
		return nil, err
	}
	return append(hdr, body...), nil
}

func write(w io.Writer, b []byte) bool {
	_, err := w.Write(b)
	return err == nil
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
