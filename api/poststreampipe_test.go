package api_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/wakewheel/wakewheel/api"
)

// openPipe dials sock and switches the connection to the pipelined post
// stream.
func openPipe(t *testing.T, sock string) (net.Conn, *bufio.Reader) {
	t.Helper()
	return upgradeTo(t, sock, api.PostStreamPipelined)
}

// pipeFrame is a pipelined post: its length (len(body) unless n >= 0),
// its id, its body.
func pipeFrame(id uint32, body string, n int) []byte {
	if n < 0 {
		n = len(body)
	}
	return append(binary.BigEndian.AppendUint32(binary.BigEndian.AppendUint32(nil, uint32(n)), id), body...)
}

// pipeAnswer reads one pipelined answer.
func pipeAnswer(t *testing.T, br *bufio.Reader) (id uint32, status int, body []byte) {
	t.Helper()
	var hdr [10]byte
	if _, err := io.ReadFull(br, hdr[:]); err != nil {
		t.Fatalf("read an answer: %v", err)
	}
	body = make([]byte, binary.BigEndian.Uint32(hdr[:]))
	if _, err := io.ReadFull(br, body); err != nil {
		t.Fatal(err)
	}
	return binary.BigEndian.Uint32(hdr[6:]), int(binary.BigEndian.Uint16(hdr[4:])), body
}

// Posts written together on a pipelined stream are each answered with
// their own id, as POST /v1/obligations answers them; a length out of
// bounds is answered after them, with its id, and ends the stream.
func TestPipelinedStreamAnswersEachByID(t *testing.T) {
	d := startDaemon(t)
	if _, err := d.client.OpenLane(context.Background(), "dev"); err != nil {
		t.Fatal(err)
	}
	posts := map[uint32]string{
		7: `{"lane":"dev","class":"human","id":"p-7","body":"seven"}`,
		3: `{"lane":"nope","class":"human","body":"x"}`,
		9: `{"lane":"dev","class":"human","id":"p-9","body":"nine"}`,
		1: `not json`,
	}
	var all []byte
	for _, id := range []uint32{7, 3, 9, 1} {
		all = append(all, pipeFrame(id, posts[id], -1)...)
	}
	all = append(all, pipeFrame(42, "", 0)...)
	c, br := openPipe(t, d.sock)
	if _, err := c.Write(all); err != nil {
		t.Fatal(err)
	}
	for range len(posts) {
		id, status, got := pipeAnswer(t, br)
		body, ok := posts[id]
		if !ok {
			t.Fatalf("an answer for id %d, which was not posted (or twice): %d %s", id, status, got)
		}
		delete(posts, id)
		wantStatus, want := httpPost(t, d, body)
		want = bytes.Replace(want, []byte(`"duplicate":true}`), []byte(`"duplicate":false}`), 1)
		if status != wantStatus || !bytes.Equal(got, want) {
			t.Errorf("id %d %.40s: stream %d %s, HTTP %d %s", id, body, status, got, wantStatus, want)
		}
	}
	id, status, got := pipeAnswer(t, br)
	var e api.Error
	if id != 42 || status != http.StatusBadRequest || json.Unmarshal(got, &e) != nil || e.Err.Code != "bad_request" || e.Err.Message == "" {
		t.Errorf("a zero length: id %d, %d %s; want id 42, 400 bad_request", id, status, got)
	}
	if _, err := br.ReadByte(); err != io.EOF {
		t.Errorf("the stream goes on after a zero length (%v), want it closed", err)
	}
}

// 64 goroutines posting through one Client share its pipelined stream:
// each gets the answer to its own post, every post is stored once, and
// once they are done no goroutine of the stream is left, the client's or
// the daemon's.
func TestPipelinedPostsShareOneClient(t *testing.T) {
	d := startDaemon(t)
	c := api.NewClient(d.sock)
	ctx := context.Background()
	if _, err := c.OpenLane(ctx, "dev"); err != nil {
		t.Fatal(err)
	}
	const posters, each = 64, 20
	var wg sync.WaitGroup
	errs := make(chan error, posters)
	for w := range posters {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				id, body := fmt.Sprintf("w%d-%d", w, i), fmt.Sprintf("post %d of poster %d", i, w)
				res, err := c.Post(ctx, api.PostRequest{Lane: "dev", Class: "human", ID: id, Body: body})
				if err == nil && (res.Obligation.ID != id || res.Obligation.Body != body || res.Duplicate) {
					err = fmt.Errorf("post %s got the answer %+v", id, res)
				}
				if err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if n := obligations(t, d); n != posters*each {
		t.Fatalf("%d obligations stored for %d posts", n, posters*each)
	}
	noStreamGoroutines(t, c)
}

// noStreamGoroutines checks that c's reader ended with its last answer,
// and that the daemon's workers end with the stream once c closes it:
// it waits (at most 10 s each) until no such goroutine runs.
func noStreamGoroutines(t *testing.T, c *api.Client) {
	t.Helper()
	waitNoGoroutine(t, "api.(*clientPipe).read")
	c.CloseIdle()
	waitNoGoroutine(t, "api.(*pipe).work")
}

func waitNoGoroutine(t *testing.T, fn string) {
	t.Helper()
	var left string
	for start := time.Now(); time.Since(start) < 10*time.Second; time.Sleep(5 * time.Millisecond) {
		buf := make([]byte, 1<<20)
		all := string(buf[:runtime.Stack(buf, true)])
		left = ""
		for _, g := range strings.Split(all, "\n\n") {
			if strings.Contains(g, fn) {
				left = g
			}
		}
		if left == "" {
			return
		}
	}
	t.Fatalf("a goroutine of the stream is left:\n%s", left)
}

// pipeProxy serves a unix socket in front of d that forwards post
// streams (both protocols) and counts their upgrades. With refusePipe it
// answers wakewheel-post/2 400 itself, as a daemon that serves only
// wakewheel-post/1 does. Each of the first lossy pipelined connections is
// cut (both ways) after drop answers went through, with the posts behind
// them in flight: delivered to the daemon, their answers lost.
type pipeProxy struct {
	sock             string
	pipes, ones      atomic.Int32
	refusePipe       bool
	lossy, drop, cut int32
}

func startPipeProxy(t *testing.T, d *daemon, p *pipeProxy) *pipeProxy {
	t.Helper()
	var lossyLeft atomic.Int32
	lossyLeft.Store(p.lossy)
	p.sock = serveProxy(t, d, func(c, up net.Conn, br, ur *bufio.Reader, req *http.Request) {
		pipelined := req.Header.Get("Upgrade") == api.PostStreamPipelined
		if pipelined && p.refusePipe {
			p.pipes.Add(1)
			body := `{"error":{"code":"bad_request","message":"send Upgrade: wakewheel-post/1"}}`
			fmt.Fprintf(c, "HTTP/1.1 400 Bad Request\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", len(body), body)
			return
		}
		if pipelined {
			p.pipes.Add(1)
		} else if req.URL.Path == api.PostStreamPath {
			p.ones.Add(1)
		}
		if req.Write(up) != nil {
			return
		}
		resp, err := http.ReadResponse(ur, req)
		if err != nil || resp.Write(c) != nil || resp.StatusCode != http.StatusSwitchingProtocols {
			return
		}
		postHdr, answerHdr, drop := 4, 6, int32(-1)
		if pipelined {
			postHdr, answerHdr = 8, 10
			if lossyLeft.Add(-1) >= 0 {
				drop = p.drop
			}
		}
		go func() { // posts up, as they come
			defer up.Close()
			for {
				post, err := frame(br, postHdr)
				if err != nil || !write(up, post) {
					return
				}
			}
		}()
		for n := int32(0); ; n++ { // answers down, until the cut
			answer, err := frame(ur, answerHdr)
			if err != nil || n == drop || !write(c, answer) {
				if n == drop {
					atomic.AddInt32(&p.cut, 1)
				}
				return
			}
		}
	})
	return p
}

// A pipelined stream cut with posts in flight: every post waiting on it
// fails, Client.Post sends each again with its id, and every post is
// stored once and answered as the caller's own (not a duplicate).
func TestPipelinedStreamLostWithPostsInFlight(t *testing.T) {
	d := startDaemon(t)
	ctx := context.Background()
	if _, err := d.client.OpenLane(ctx, "dev"); err != nil {
		t.Fatal(err)
	}
	p := startPipeProxy(t, d, &pipeProxy{lossy: 3, drop: 40})
	c := api.NewClient(p.sock)
	const posters, each = 32, 10
	var wg sync.WaitGroup
	errs := make(chan error, posters)
	ids := make(chan string, posters*each)
	for w := range posters {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				res, err := c.Post(ctx, api.PostRequest{Lane: "dev", Class: "human", Body: fmt.Sprintf("post %d of %d", i, w)})
				if err == nil && res.Duplicate {
					err = fmt.Errorf("a post retried by its own id was answered as a duplicate: %+v", res)
				}
				if err != nil {
					errs <- err
					return
				}
				ids <- res.Obligation.ID
			}
		}()
	}
	wg.Wait()
	close(errs)
	close(ids)
	for err := range errs {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for id := range ids {
		if seen[id] {
			t.Fatalf("two posts answered with the id %s", id)
		}
		seen[id] = true
	}
	if n := obligations(t, d); n != posters*each {
		t.Fatalf("%d obligations stored for %d posts", n, posters*each)
	}
	if cut := atomic.LoadInt32(&p.cut); cut == 0 {
		t.Fatal("no stream was cut with posts in flight: the test tested nothing")
	}
	noStreamGoroutines(t, c)
}

// A daemon that serves only wakewheel-post/1 refuses the pipelined stream
// with 400: the client posts on /1 streams from then on, and asks for /2
// no more.
func TestClientPostsOneAtATimeToAnOlderDaemon(t *testing.T) {
	d := startDaemon(t)
	ctx := context.Background()
	if _, err := d.client.OpenLane(ctx, "dev"); err != nil {
		t.Fatal(err)
	}
	p := startPipeProxy(t, d, &pipeProxy{refusePipe: true})
	c := api.NewClient(p.sock)
	for i := range 3 {
		res, err := c.Post(ctx, api.PostRequest{Lane: "dev", Class: "human", Body: fmt.Sprint("post ", i)})
		if err != nil || res.Obligation.Seq == 0 {
			t.Fatalf("post to a daemon of post/1: %+v %v", res, err)
		}
	}
	if p.pipes.Load() != 1 || p.ones.Load() != 1 {
		t.Fatalf("%d asks for the pipelined stream (want 1), %d post/1 streams (want 1)", p.pipes.Load(), p.ones.Load())
	}
}

// Shutdown waits for the posts in flight on a pipelined stream, served by
// its workers, and each is answered. (The first post on a stream is served
// by its reader, which reads the others once it is answered; written in
// one write while the first is held, they are read together and go to the
// stream's workers.)
func TestShutdownAnswersPipelinedPostsInFlight(t *testing.T) {
	const inFlight = 4
	sock, front, svc := heldFront(t, inFlight+1)
	c, br := openPipe(t, sock)
	post := func(i int) []byte {
		return pipeFrame(uint32(i), fmt.Sprintf(`{"lane":"dev","class":"human","body":"in flight %d"}`, i), -1)
	}
	answered := make(chan error, inFlight+1)
	go func() {
		var hdr [10]byte
		for range inFlight + 1 {
			if _, err := io.ReadFull(br, hdr[:]); err != nil {
				answered <- err
				return
			}
			body := make([]byte, binary.BigEndian.Uint32(hdr[:]))
			_, err := io.ReadFull(br, body)
			if status := binary.BigEndian.Uint16(hdr[4:]); err == nil && status != http.StatusOK {
				err = fmt.Errorf("answered %d: %s", status, body)
			}
			answered <- err
		}
	}()
	if _, err := c.Write(post(0)); err != nil {
		t.Fatal(err)
	}
	<-svc.held // the first, served by the reader
	var rest []byte
	for i := 1; i <= inFlight; i++ {
		rest = append(rest, post(i)...)
	}
	if _, err := c.Write(rest); err != nil {
		t.Fatal(err)
	}
	svc.release <- struct{}{}
	if err := <-answered; err != nil {
		t.Fatal(err)
	}
	for range inFlight {
		<-svc.held // the daemon's workers hold the others at once
	}
	if err := <-shutdownAnswersHeld(t, front, svc, answered, inFlight); err != nil {
		t.Fatalf("shutdown: %v", err)
	}
}

// The posts of one read are posted together, in the order written: a
// lane's sequence numbers follow that order, and a post re-sending an id
// of the same read is answered as a duplicate of it, after it.
func TestPipelinedPostsOfOneReadKeepTheirOrder(t *testing.T) {
	d := startDaemon(t)
	if _, err := d.client.OpenLane(context.Background(), "dev"); err != nil {
		t.Fatal(err)
	}
	ids := []string{"a", "b", "a", "c", "d"}
	var all []byte
	for i, id := range ids {
		all = append(all, pipeFrame(uint32(i), fmt.Sprintf(`{"lane":"dev","class":"human","id":%q,"body":"post %d"}`, id, i), -1)...)
	}
	c, br := openPipe(t, d.sock)
	if _, err := c.Write(all); err != nil {
		t.Fatal(err)
	}
	want := []struct {
		seq uint64
		dup bool
	}{{1, false}, {2, false}, {1, true}, {3, false}, {4, false}}
	for range ids {
		id, status, body := pipeAnswer(t, br)
		var res api.PostResult
		if status != http.StatusOK || json.Unmarshal(body, &res) != nil || id >= uint32(len(ids)) {
			t.Fatalf("post %d: %d %s", id, status, body)
		}
		if w := want[id]; res.Obligation.Seq != w.seq || res.Duplicate != w.dup || res.Obligation.ID != ids[id] {
			t.Errorf("post %d (id %s): seq %d dup %v; want seq %d dup %v", id, ids[id], res.Obligation.Seq, res.Duplicate, w.seq, w.dup)
		}
	}
}
