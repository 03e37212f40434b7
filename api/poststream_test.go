package api_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rs/zerolog"
	"github.com/wakewheel/wakewheel/api"
	ob "github.com/wakewheel/wakewheel/obligations"
)

// openStream dials sock and switches the connection to the post stream.
func openStream(t *testing.T, sock string) (net.Conn, *bufio.Reader) {
	t.Helper()
	return upgradeTo(t, sock, api.PostStreamProtocol)
}

// upgradeTo dials sock and switches the connection to the stream of the
// Upgrade token proto, which the daemon's answer must name.
func upgradeTo(t *testing.T, sock, proto string) (net.Conn, *bufio.Reader) {
	t.Helper()
	c, err := net.Dial("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	c.SetDeadline(time.Now().Add(time.Minute))
	if _, err := io.WriteString(c, "POST "+api.PostStreamPath+" HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: "+proto+"\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(c)
	resp, err := http.ReadResponse(br, nil)
	if err != nil || resp.StatusCode != http.StatusSwitchingProtocols || resp.Header.Get("Upgrade") != proto {
		t.Fatalf("upgrade: %v %v", resp, err)
	}
	return c, br
}

// streamPost sends one frame of length n (len(body) unless n >= 0) and
// reads its answer.
func streamPost(t *testing.T, c net.Conn, br *bufio.Reader, body []byte, n int) (int, []byte) {
	t.Helper()
	if n < 0 {
		n = len(body)
	}
	if _, err := c.Write(append(binary.BigEndian.AppendUint32(nil, uint32(n)), body...)); err != nil {
		t.Fatal(err)
	}
	var hdr [6]byte
	if _, err := io.ReadFull(br, hdr[:]); err != nil {
		t.Fatalf("answer to %q: %v", body, err)
	}
	out := make([]byte, binary.BigEndian.Uint32(hdr[:]))
	if _, err := io.ReadFull(br, out); err != nil {
		t.Fatal(err)
	}
	return int(binary.BigEndian.Uint16(hdr[4:])), out
}

func httpPost(t *testing.T, d *daemon, body string) (int, []byte) {
	t.Helper()
	resp, err := d.raw.Post("http://wakewheel/v1/obligations", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, out
}

// A post on the stream is answered as POST /v1/obligations answers it:
// the same status and the same bytes, for errors and for successes (a
// post's answer on the stream is byte for byte its duplicate's over HTTP,
// but for "duplicate"), and the stream goes on after an error answer.
func TestPostStreamAnswersAsHTTP(t *testing.T) {
	d := startDaemon(t)
	if _, err := d.client.OpenLane(context.Background(), "dev"); err != nil {
		t.Fatal(err)
	}
	c, br := openStream(t, d.sock)
	traffic := d.traffic.Load()
	for _, body := range []string{
		`{"lane":"nope","class":"human","body":"x"}`,
		`{"lane":"dev","class":"weather","body":"x"}`,
		`{"lane":"dev","class":"human","body":"x","colour":"red"}`,
		`{"lane":"dev","class":"human","body":"x"} {}`,
		`not json`,
		`{"lane":"dev","class":"human","body":"` + strings.Repeat("y", 2000) + `"}`,
	} {
		status, got := streamPost(t, c, br, []byte(body), -1)
		wantStatus, want := httpPost(t, d, body)
		if status != wantStatus || !bytes.Equal(got, want) {
			t.Errorf("%.60s: stream answered %d %s, HTTP %d %s", body, status, got, wantStatus, want)
		}
		if status < 400 {
			t.Errorf("%.60s: answered %d, want an error", body, status)
		}
	}
	for _, body := range []string{
		`{"lane":"dev","class":"human","id":"a-1","body":"review <this> & \"that\" \u2028","locator":{"repo":"r","file":"f.go"}}`,
		`{"Lane":"dev","class":"human","id":"a-2","body":"another case of a key: encoding/json reads it"}`,
		`{"lane":"dev","class":"alert","id":"a-3","body":"disk","key":"disk-full","canary":true,"locator":{"repo":"r","issue":"7"}}`,
	} {
		status, got := streamPost(t, c, br, []byte(body), -1)
		wantStatus, want := httpPost(t, d, body)
		if status != http.StatusOK || wantStatus != http.StatusOK ||
			!bytes.Equal(got, bytes.Replace(want, []byte(`"duplicate":true}`), []byte(`"duplicate":false}`), 1)) {
			t.Errorf("%.60s:\nstream %d %s\nHTTP   %d %s", body, status, got, wantStatus, want)
		}
	}
	if n := d.traffic.Load() - traffic; n != 18 {
		t.Errorf("traffic: %d requests reported for 9 posts on the stream and 9 over HTTP", n)
	}
	if n := obligations(t, d); n != 3 {
		t.Errorf("%d obligations stored, want 3", n)
	}
}

// A frame's length out of bounds is answered and ends the stream.
func TestPostStreamLengthOutOfBounds(t *testing.T) {
	d := startDaemon(t)
	for _, tc := range []struct {
		n      int
		status int
		code   string
	}{{0, http.StatusBadRequest, "bad_request"}, {api.MaxRequestBytes + 1, http.StatusRequestEntityTooLarge, "too_large"}} {
		c, br := openStream(t, d.sock)
		status, out := streamPost(t, c, br, nil, tc.n)
		var e api.Error
		if status != tc.status || json.Unmarshal(out, &e) != nil || e.Err.Code != tc.code || e.Err.Message == "" {
			t.Errorf("length %d: %d %s, want %d %s", tc.n, status, out, tc.status, tc.code)
		}
		if _, err := br.ReadByte(); err != io.EOF {
			t.Errorf("length %d: the stream goes on (%v), want it closed", tc.n, err)
		}
	}
}

// The route without its Upgrade header is a clear error.
func TestPostStreamNeedsTheUpgrade(t *testing.T) {
	d := startDaemon(t)
	resp, err := d.raw.Post("http://wakewheel"+api.PostStreamPath, "application/json", strings.NewReader(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var e api.Error
	if err := json.NewDecoder(resp.Body).Decode(&e); err != nil || resp.StatusCode != http.StatusBadRequest ||
		!strings.Contains(e.Err.Message, "Upgrade: "+api.PostStreamPipelined) || !strings.Contains(e.Err.Message, api.PostStreamProtocol) {
		t.Fatalf("%d %+v %v", resp.StatusCode, e, err)
	}
}

// A daemon older than the stream answers its upgrade 404: the client posts
// over HTTP, and keeps doing so without asking again.
func TestClientPostsOverHTTPWithoutTheStream(t *testing.T) {
	sock := fakeSocket(t)
	srv := api.NewServer(nil, nil, api.Info{Version: "old"}, zerolog.Nop())
	var posts atomic.Int64
	srv.Handle("POST /v1/obligations", "post", func(w http.ResponseWriter, r *http.Request) error {
		posts.Add(1)
		w.Header().Set("Content-Type", "application/json")
		_, err := io.WriteString(w, `{"obligation":{"lane":"dev","seq":1,"id":"x","class":"human","body":"b","posted":"2026-01-02T03:04:05Z"},"duplicate":false}`)
		return err
	})
	serveUp(t, srv, sock)
	t.Cleanup(func() { srv.Shutdown(context.Background()) })
	c := api.NewClient(sock)
	ctx := context.Background()
	for range 3 {
		res, err := c.Post(ctx, api.PostRequest{Lane: "dev", Class: "human", Body: "b"})
		if err != nil || res.Obligation.Seq != 1 {
			t.Fatalf("post to an older daemon: %+v %v", res, err)
		}
	}
	if posts.Load() != 3 {
		t.Fatalf("%d posts over HTTP, want 3", posts.Load())
	}
}

// serveUp serves srv on sock and returns once the socket is bound.
func serveUp(tb testing.TB, srv *api.Server, sock string) {
	tb.Helper()
	go srv.Serve(sock)
	if err := waitForSocket(sock); err != nil {
		tb.Fatal(err)
	}
}

// heldPosts holds every post until released, and says when it holds one.
type heldPosts struct {
	instantPosts
	held    chan struct{}
	release chan struct{}
}

func (h *heldPosts) Post(ctx context.Context, o ob.Obligation, create bool) (ob.Obligation, error) {
	h.held <- struct{}{}
	select {
	case <-h.release:
	case <-ctx.Done():
		return o, ctx.Err()
	}
	return h.instantPosts.Post(ctx, o, create)
}

// heldFront is a daemon's front on a fresh socket, ready, serving posts
// through heldPosts (room for held posts held at once).
func heldFront(t *testing.T, held int) (string, *api.Front, *heldPosts) {
	t.Helper()
	sock := fakeSocket(t)
	front, err := api.ListenFront(sock, api.Info{Version: "test"}, func() api.LoadState { return api.LoadState{} }, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	svc := &heldPosts{held: make(chan struct{}, held), release: make(chan struct{})}
	srv := api.NewServer(nil, nil, api.Info{Version: "test"}, zerolog.Nop())
	api.RegisterObligations(srv, svc)
	front.Ready(srv)
	return sock, front, svc
}

// shutdownAnswersHeld starts front's Shutdown while n posts are held in
// svc: neither Shutdown nor an answer may come before they are released;
// once released, each of the n is answered. It returns Shutdown's result.
func shutdownAnswersHeld(t *testing.T, front *api.Front, svc *heldPosts, answered <-chan error, n int) <-chan error {
	t.Helper()
	stopped := make(chan error, 1)
	go func() { stopped <- front.Shutdown(context.Background()) }()
	select {
	case err := <-stopped:
		t.Fatalf("shutdown returned (%v) with %d posts in flight", err, n)
	case err := <-answered:
		t.Fatalf("a post in flight was answered (%v) before it was released", err)
	case <-time.After(200 * time.Millisecond):
	}
	close(svc.release)
	for range n {
		if err := <-answered; err != nil {
			t.Fatalf("a post in flight at shutdown: %v, want its answer", err)
		}
	}
	return stopped
}

// Shutdown (the daemon's, through its front) ends idle post streams at
// once, waits for a post in flight on a stream, and that post is answered.
func TestShutdownAnswersStreamPostsInFlight(t *testing.T) {
	sock, front, svc := heldFront(t, 8)
	ctx := context.Background()
	idle := api.NewClient(sock) // one post answered, then its stream idles
	go func() { <-svc.held; svc.release <- struct{}{} }()
	if _, err := idle.Post(ctx, api.PostRequest{Lane: "dev", Class: "human", Body: "first"}); err != nil {
		t.Fatal(err)
	}
	answered := make(chan error, 1)
	go func() {
		_, err := api.NewClient(sock).Post(ctx, api.PostRequest{Lane: "dev", Class: "human", Body: "in flight"})
		answered <- err
	}()
	<-svc.held // the daemon holds the post
	stopped := shutdownAnswersHeld(t, front, svc, answered, 1)
	select {
	case err := <-stopped:
		if err != nil {
			t.Fatalf("shutdown: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("shutdown still waits once every post is answered (the idle stream holds it?)")
	}
	_, err := idle.WithLoadingWait(0).Post(ctx, api.PostRequest{Lane: "dev", Class: "human", Body: "after"})
	if !errors.Is(err, api.ErrDaemonDown) {
		t.Fatalf("a post after shutdown: %v, want ErrDaemonDown", err)
	}
}

// A post sent while the daemon loads waits through the load on the stream
// as over HTTP; one that may not wait gets "loading".
func TestStreamPostThroughALoad(t *testing.T) {
	sock := fakeSocket(t)
	front, err := api.ListenFront(sock, api.Info{Version: "test"}, func() api.LoadState { return api.LoadState{Percent: 7} }, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { front.Shutdown(context.Background()) })
	c := api.NewClient(sock)
	ctx := context.Background()
	_, err = c.WithLoadingWait(0).Post(ctx, api.PostRequest{Lane: "dev", Class: "human", Body: "early"})
	var ae *api.Error
	if !errors.As(err, &ae) || ae.Err.Code != "loading" {
		t.Fatalf("a post while loading: %v, want code loading", err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := c.Post(ctx, api.PostRequest{Lane: "dev", Class: "human", Body: "waited"})
		done <- err
	}()
	srv := api.NewServer(nil, nil, api.Info{Version: "test"}, zerolog.Nop())
	svc := &instantPosts{}
	api.RegisterObligations(srv, svc)
	front.Ready(srv)
	if err := <-done; err != nil {
		t.Fatalf("a post sent during the load, once ready: %v", err)
	}
	if svc.seq.Load() != 1 {
		t.Fatalf("%d posts served, want 1 (the early one was never applied)", svc.seq.Load())
	}
}

// Cancelling a post's context ends it at once on the stream too.
func TestStreamPostCancelled(t *testing.T) {
	sock := fakeSocket(t)
	svc := &heldPosts{held: make(chan struct{}, 1), release: make(chan struct{})}
	srv := api.NewServer(nil, nil, api.Info{Version: "test"}, zerolog.Nop())
	api.RegisterObligations(srv, svc)
	serveUp(t, srv, sock)
	t.Cleanup(func() { close(svc.release); srv.Shutdown(context.Background()) })
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := api.NewClient(sock).Post(ctx, api.PostRequest{Lane: "dev", Class: "human", Body: "x"})
		done <- err
	}()
	<-svc.held
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("cancelled post: %v, want context.Canceled", err)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("a cancelled post did not end")
	}
}

// A post over MaxRequestBytes is not framed: it goes over HTTP, which
// answers it too large, as before the stream.
func TestClientPostTooLargeForTheStream(t *testing.T) {
	d := startDaemon(t)
	_, err := d.client.Post(context.Background(), api.PostRequest{Lane: "dev", Class: "human", Create: true,
		Body: strings.Repeat("x", api.MaxRequestBytes)})
	var e *api.Error
	if !errors.As(err, &e) || e.Err.Code != "too_large" || !strings.Contains(e.Err.Message, "exceeds") {
		t.Fatalf("a post over the limit: %v, want too_large", err)
	}
	if n := obligations(t, d); n != 0 {
		t.Fatalf("%d obligations stored", n)
	}
}

// Posts sent ahead of their answers (several frames in one write, one
// larger than the stream's read buffer, one split across writes) are each
// answered, in order, and stored once.
func TestPostStreamTakesPostsSentAhead(t *testing.T) {
	d := startDaemon(t)
	if _, err := d.client.OpenLane(context.Background(), "dev"); err != nil {
		t.Fatal(err)
	}
	c, br := openStream(t, d.sock)
	frame := func(id, pad string) []byte { // pad: whitespace, as JSON allows it, for a frame of any size
		b := []byte(`{"lane":"dev","class":"human","id":"` + id + `",` + pad + `"body":"sent ahead"}`)
		return append(binary.BigEndian.AppendUint32(nil, uint32(len(b))), b...)
	}
	var ahead []byte
	ids := []string{"s-1", "s-2", "s-3", "s-4"}
	for i, id := range ids {
		ahead = append(ahead, frame(id, strings.Repeat(" ", i*3000))...) // s-3 and s-4 over 4 KiB
	}
	split := frame("s-5", "") // the last, in two writes
	if _, err := c.Write(append(ahead, split[:7]...)); err != nil {
		t.Fatal(err)
	}
	for _, id := range ids {
		status, got := readAnswer(t, br)
		if status != http.StatusOK || !strings.Contains(string(got), `"id":"`+id+`"`) {
			t.Fatalf("answer for %s: %d %.80s", id, status, got)
		}
	}
	if _, err := c.Write(split[7:]); err != nil {
		t.Fatal(err)
	}
	if status, got := readAnswer(t, br); status != http.StatusOK || !strings.Contains(string(got), `"id":"s-5"`) {
		t.Fatalf("answer for s-5: %d %.80s", status, got)
	}
	if n := obligations(t, d); n != 5 {
		t.Fatalf("%d obligations stored, want 5", n)
	}
}

// A post larger than the client's raw round trip takes (rawtrip.go)
// goes on the stream the ordinary way, and the daemon reads it whole (a
// frame larger than its read buffer): it answers it (over the class's
// body limit), and the stream carries the next post.
func TestClientPostsALargeBodyOnTheStream(t *testing.T) {
	d := startDaemon(t)
	_, err := d.client.Post(context.Background(), api.PostRequest{Lane: "dev", Class: "human", Create: true,
		Body: strings.Repeat("large ", 40<<10/6)})
	var e *api.Error
	if !errors.As(err, &e) || !strings.Contains(e.Err.Message, "body is 40956 bytes") {
		t.Fatalf("a 40 KiB post: %v, want the daemon's answer that its body is too large", err)
	}
	if res, err := d.client.Post(context.Background(), api.PostRequest{Lane: "dev", Class: "human", Create: true, Body: "small after"}); err != nil || res.Obligation.Seq != 1 {
		t.Fatalf("the next post on the stream: %+v %v", res, err)
	}
	if n := obligations(t, d); n != 1 {
		t.Fatalf("%d obligations stored, want 1", n)
	}
}

func readAnswer(t *testing.T, br *bufio.Reader) (int, []byte) {
	t.Helper()
	var hdr [6]byte
	if _, err := io.ReadFull(br, hdr[:]); err != nil {
		t.Fatal(err)
	}
	out := make([]byte, binary.BigEndian.Uint32(hdr[:]))
	if _, err := io.ReadFull(br, out); err != nil {
		t.Fatal(err)
	}
	return int(binary.BigEndian.Uint16(hdr[4:])), out
}
