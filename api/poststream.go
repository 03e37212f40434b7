package api

import (
	"context"
	"encoding/binary"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"
)

// The post stream: the hot route without HTTP's work per request.
//
// A client that posts asks, once per connection, to switch the
// connection to the post stream:
//
//	POST /v1/obligations/stream HTTP/1.1
//	Connection: Upgrade
//	Upgrade: wakewheel-post/2
//
// The daemon answers 101 Switching Protocols with the same Upgrade
// token, and from then on the connection carries posts. Two protocols
// are served:
//
// wakewheel-post/2, pipelined: a client sends posts without waiting for
// their answers, as many as it has (the daemon reads no further while
// pipeDepth of them are in flight), and the daemon serves every post it
// reads at once, beside the others, and answers each as soon as it is
// durable, so answers come in any order, each with its post's id:
//
//	post:   length n (uint32, big-endian), 1 ≤ n ≤ MaxRequestBytes, id
//	        (uint32, big-endian, the client's choice), then n bytes: a
//	        body of POST /v1/obligations (PostRequest)
//	answer: length n (uint32, big-endian), HTTP status (uint16,
//	        big-endian), id (uint32, big-endian, the post's), then n
//	        bytes: what POST /v1/obligations answers with that status
//	        (PostResult, or an Error)
//
// Many callers of one Client share one such stream (clientpipe.go): their
// posts go out together in one write, are read together in one read, and
// their answers ready together go back in one write.
//
// wakewheel-post/1, one at a time (for clients older than /2): each post
// is answered before the next is read, and its frames carry no id:
//
//	post:   length n (uint32, big-endian), 1 ≤ n ≤ MaxRequestBytes, then
//	        n bytes: a body of POST /v1/obligations (PostRequest)
//	answer: length n (uint32, big-endian), HTTP status (uint16,
//	        big-endian), then n bytes: what POST /v1/obligations answers
//	        with that status (PostResult, or an Error)
//
// A post on either stream is served exactly as POST /v1/obligations serves
// it: the same reader, the same service call (durable before its answer),
// the same error table, traffic reported the same way, a panic answered
// 500 and logged. What it saves is net/http's work per request, which cost
// the daemon more CPU than the post itself: parsing a request line and
// its headers into a map, a Request, a context and a response per post,
// and the reader goroutine net/http starts on the connection under every
// request to notice a client that went away; a post is one read and one
// write, or a share of them when pipelined.
//
// Trust is the connection's: its peer's uid was checked when it was
// accepted (peercred.go), before the upgrade was read; the client checked
// the daemon's before it sent anything. A length out of bounds is answered
// (400 for 0, 413 over MaxRequestBytes; pipelined, after the posts before
// it and with its id) and the connection closed, since the stream cannot
// be found again after it. An idle stream is closed after RequestTimeout
// (within a second), like an idle HTTP connection. Shutdown ends idle
// streams at once, lets every post in flight answer, and waits for them.
// A daemon that does not know the route (404) is posted to over HTTP, and
// one that knows only wakewheel-post/1 (it refuses /2 with 400) on /1
// streams (clientconn.go).

// PostStreamPath is the route that switches a connection to the post
// stream; PostStreamProtocol and PostStreamPipelined the Upgrade tokens
// of its two protocols.
const (
	PostStreamPath      = "/v1/obligations/stream"
	PostStreamProtocol  = "wakewheel-post/1"
	PostStreamPipelined = "wakewheel-post/2"
)

// Frame headers: a post's length; an answer's length and status.
const (
	postHeader   = 4
	answerHeader = 6
)

var switched = []byte("HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: " + PostStreamProtocol + "\r\n\r\n")

// stream is the route's handler: it takes the connection over and serves
// its posts until the client closes it, it idles, or Shutdown.
func (h obligationRoutes) stream(w http.ResponseWriter, r *http.Request) error {
	token := r.Header.Get("Upgrade")
	pipelined := strings.EqualFold(token, PostStreamPipelined)
	if !pipelined && !strings.EqualFold(token, PostStreamProtocol) {
		return badf("POST %s switches the connection to the post stream: send the headers `Connection: Upgrade` and `Upgrade: %s` (or %s, one post at a time), or post to /v1/obligations",
			PostStreamPath, PostStreamPipelined, PostStreamProtocol)
	}
	c, rw, err := http.NewResponseController(w).Hijack()
	if err != nil {
		return fmt.Errorf("api: take over the connection for the post stream: %w", err)
	}
	buffered, _ := rw.Reader.Peek(rw.Reader.Buffered()) // a client may have sent posts behind the upgrade
	if pipelined {
		h.srv.streams.servePipelined(c, newStreamIO(c, buffered, pipeBuffer), h.postAnswer, h.eachPoster())
	} else {
		h.srv.streams.serve(c, newStreamIO(c, buffered, streamBuffer), h.postAnswer)
	}
	return nil
}

// postAnswer serves one post of the stream within ctx: its answer's
// status, and its JSON appended to out.
func (h obligationRoutes) postAnswer(ctx context.Context, body, out []byte) (status int, reply []byte) {
	front := len(out)
	defer func() {
		if p := recover(); p != nil {
			var code, msg string
			status, code, msg = h.srv.recovered(p, PostStreamPath)
			reply = appendError(out[:front], code, msg)
		}
	}()
	h.srv.traffic("post")
	res, err := h.postOne(ctx, body)
	if err != nil {
		status, code, msg := h.srv.failure(err)
		return status, appendError(out, code, msg)
	}
	return http.StatusOK, appendPostAnswer(out, &res)
}

// streamSet is the server's post streams, for Shutdown.
type streamSet struct {
	mu      sync.Mutex
	streams map[*postStream]struct{}
	closed  bool
	wg      sync.WaitGroup
}

// postStream is one connection taken over for posts.
type postStream struct {
	c       net.Conn
	mu      sync.Mutex
	stopped bool // Shutdown began: read no further post
	// armed is when the read deadline and ctx were last set, both
	// RequestTimeout after it: a post waits at most that long, and an idle
	// stream is closed RequestTimeout after its last post, give or take
	// rearmEvery (a deadline moved for every post costs a timer's change
	// each time).
	armed  time.Time
	ctx    context.Context
	cancel context.CancelFunc
	// inflight counts the posts served within a ctx (enter to leave); a
	// ctx moved from while posts used it is retired, and cancelled once
	// none does (or once its deadline passed, which released it).
	inflight int
	retired  []armedCtx
}

// armedCtx is a ctx of the stream's with its cancel.
type armedCtx struct {
	ctx    context.Context
	cancel context.CancelFunc
}

// serve reads posts from in and writes their answers to c until the
// client closes it, it idles past RequestTimeout, a frame is malformed, or
// Shutdown.
func (ss *streamSet) serve(c net.Conn, in *streamIO, post postFunc) {
	ss.run(c, switched, func(st *postStream) { serveOneByOne(st, in, post) })
}

// run switches c (writing its 101 answer, switched) and has serve serve
// its posts, as one of the set's streams, then closes c.
func (ss *streamSet) run(c net.Conn, switched []byte, serve func(st *postStream)) {
	defer c.Close()
	st := &postStream{c: c}
	if !ss.add(st) {
		return
	}
	defer ss.remove(st)
	defer st.disarm()
	if _, err := c.Write(switched); err != nil {
		return
	}
	serve(st)
}

// lengthRefused is the answer to a post whose length n is out of bounds:
// its status, and its JSON error behind header bytes for the frame's
// header.
func lengthRefused(n uint32, header int) (int, []byte) {
	status, code, msg := http.StatusBadRequest, "bad_request", "a post on the stream needs a body: its length was 0"
	if n > MaxRequestBytes {
		status, code, msg = http.StatusRequestEntityTooLarge, "too_large", fmt.Sprintf("request body exceeds %d bytes", MaxRequestBytes)
	}
	return status, appendError(make([]byte, header), code, msg)
}

// serveOneByOne serves a wakewheel-post/1 stream.
func serveOneByOne(st *postStream, in *streamIO, post postFunc) {
	c := st.c
	buf := getBuffer()
	defer func() { putBuffer(buf) }()
	for st.arm() {
		n, body, err := in.frame()
		if err != nil {
			return // closed, idle, or Shutdown
		}
		if body == nil {
			status, out := lengthRefused(n, answerHeader)
			_, _ = c.Write(frameAnswer(out, status))
			return
		}
		status, out := post(st.enter(), body, append((*buf)[:0], make([]byte, answerHeader)...))
		st.leave()
		*buf = out
		if err := in.answer(frameAnswer(out, status)); err != nil {
			return // written; the stream ends
		}
	}
}

// frameAnswer fills the answer's header in front of its body.
func frameAnswer(out []byte, status int) []byte {
	binary.BigEndian.PutUint32(out, uint32(len(out)-answerHeader))
	binary.BigEndian.PutUint16(out[4:], uint16(status))
	return out
}

// arm bounds the wait for the next post and the post itself, unless
// Shutdown began; the bounds move at most every rearmEvery.
func (st *postStream) arm() bool {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.stopped {
		return false
	}
	now := time.Now()
	if now.Sub(st.armed) < rearmEvery {
		return true
	}
	if st.c.SetReadDeadline(now.Add(RequestTimeout)) != nil {
		return false
	}
	st.retire()
	st.armed = now
	st.ctx, st.cancel = context.WithDeadline(context.Background(), now.Add(RequestTimeout))
	return true
}

// retire lets go of the current ctx: cancelled now if no post uses it,
// else once none does.
func (st *postStream) retire() {
	if st.cancel == nil {
		return
	}
	if st.inflight == 0 {
		st.cancel()
		return
	}
	live := st.retired[:0]
	for _, a := range st.retired {
		if a.ctx.Err() == nil {
			live = append(live, a)
		}
	}
	st.retired = append(live, armedCtx{st.ctx, st.cancel})
}

// enter returns the ctx a post read now is served within; leave says it
// was served.
func (st *postStream) enter() context.Context {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.inflight++
	return st.ctx
}

func (st *postStream) leave() {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.inflight--; st.inflight == 0 {
		for _, a := range st.retired {
			a.cancel()
		}
		st.retired = st.retired[:0]
	}
}

// disarm releases the stream's contexts, once no post is served.
func (st *postStream) disarm() {
	st.mu.Lock()
	defer st.mu.Unlock()
	for _, a := range st.retired {
		a.cancel()
	}
	if st.cancel != nil {
		st.cancel()
	}
}

// stop ends the stream's wait for a post at once, and the read of a post
// not yet whole (it is dropped unanswered, nothing of it applied); a post
// being served answers (a write has no deadline), and none is read after
// it.
func (st *postStream) stop() {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.stopped = true
	st.c.SetReadDeadline(farPast)
}

func (ss *streamSet) add(st *postStream) bool {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if ss.closed {
		return false
	}
	if ss.streams == nil {
		ss.streams = map[*postStream]struct{}{}
	}
	ss.streams[st] = struct{}{}
	ss.wg.Add(1)
	return true
}

func (ss *streamSet) remove(st *postStream) {
	ss.mu.Lock()
	delete(ss.streams, st)
	ss.mu.Unlock()
	ss.wg.Done()
}

// shutdown stops every stream and waits, within ctx, for their posts in
// flight to be answered.
func (ss *streamSet) shutdown(ctx context.Context) error {
	ss.mu.Lock()
	ss.closed = true
	for st := range ss.streams {
		st.stop()
	}
	ss.mu.Unlock()
	done := make(chan struct{})
	go func() { ss.wg.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("api: post streams still answering at shutdown: %w", ctx.Err())
	}
}
