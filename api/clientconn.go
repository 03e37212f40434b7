package api

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// The client's connections: HTTP/1.1 over the unix socket, and post
// streams for the posts (poststream.go), one request at a time on a
// connection, written and read by the calling goroutine. net/http's
// Transport hands every request to two goroutines of its connection and
// back, and with 64 posters that cost the client more CPU than the daemon
// spent on the post. A request is one write; an HTTP answer is read with
// net/http's own parser, a post's from its frame.

// idleFor is how long an idle connection is reused: well under the
// daemon's idle timeout (its ReadTimeout, RequestTimeout), so the daemon
// does not close one just as a request is written to it.
const idleFor = 10 * time.Second

// connPool keeps up to ClientConns idle connections to one socket, one
// pipelined post stream that every poster shares (clientpipe.go), and,
// for a daemon that serves only wakewheel-post/1, up to ClientConns idle
// post streams of that protocol (poststream.go).
type connPool struct {
	socket string
	mu     sync.Mutex
	idle   []*clientConn // the most recently used last
	posts  []*clientConn // idle wakewheel-post/1 streams, likewise
	pipe   *clientPipe   // the pipelined stream, nil until the first post
	// dialling is held while the pipelined stream is dialled, so that the
	// posters who find none wait for one stream, not one each.
	dialling sync.Mutex
	// httpPosts: the daemon answered the stream's upgrade 404 (it is older
	// than the stream), so posts go over HTTP; onePosts: it refused
	// wakewheel-post/2 (it is older than the pipelined stream), so posts go
	// one at a time on wakewheel-post/1 streams.
	httpPosts, onePosts atomic.Bool
}

type clientConn struct {
	c      net.Conn
	br     *bufio.Reader
	since  time.Time // idle since
	stream bool      // switched to the post stream
	// deadline is the connection's read and write deadline, set at armed
	// (zero when it came from a caller's context).
	deadline, armed time.Time
	answer          []byte // a post's answer is read into it
	// raw is the connection's descriptor, nil where posts take the
	// ordinary path; trip its round trips, in their first reads
	// (rawtrip.go).
	raw  syscall.RawConn
	trip *rawTrip
	in   []byte
}

// A post stream's answer buffer: one that fits most answers, and the most
// kept once an answer was large.
const (
	minAnswer     = 1024
	maxKeptAnswer = 64 << 10
)

// refusedUpgrade is the daemon's answer to a stream's upgrade when it is
// not 101: an answer to the post (loading, stopping), or 404 from a daemon
// that has no post stream.
type refusedUpgrade struct {
	status   int
	data     []byte
	protocol string // asked for
}

func (r *refusedUpgrade) Error() string { return fmt.Sprintf("post stream refused: HTTP %d", r.status) }

// exchange sends one request and hands the answer's status and body to
// answer, whose data is the connection's until answer returns; a post
// (POST /v1/obligations) goes on a post stream, unless its body is over
// MaxRequestBytes (HTTP answers that) or the daemon has no stream.
// A request on a reused connection that the daemon had closed (it
// restarted, or it timed the connection out) is sent once more on a new
// one: nothing of it was answered. A live daemon answers every request
// it reads (a panic is answered 500, Shutdown waits for requests in
// flight), so only one that died after applying it and was restarted
// before the re-send could see it twice; a post is idempotent by its id
// (Client.Post's own retries rely on that), an ack up to a sequence number
// and a push to a time by their effect.
func (p *connPool) exchange(ctx context.Context, method, path string, body []byte, hasBody bool, answer func(status int, data []byte)) error {
	stream := method == http.MethodPost && path == postPath && len(body) <= MaxRequestBytes && !p.httpPosts.Load()
	for attempt := 0; ; attempt++ {
		if stream && !p.onePosts.Load() {
			cp, reused, err := p.getPipe(ctx)
			if err == nil {
				status, data, release, sent, err := cp.post(ctx, body)
				if err == nil {
					answer(status, data)
					release()
					return nil
				}
				if ctx.Err() != nil {
					return ctx.Err()
				}
				if !reused || sent || attempt > 0 {
					return err // a post sent may have been stored: Client.Post retries it by its id
				}
				continue
			}
			if retry, err := p.refused(err, answer); !retry {
				return err
			}
			stream, attempt = !p.httpPosts.Load(), -1
			continue
		}
		cn, reused, err := p.get(ctx, stream)
		if err != nil {
			if retry, err := p.refused(err, answer); !retry {
				return err
			}
			stream, attempt = false, -1
			continue
		}
		var status int
		var data []byte
		var keep, answered bool
		if stream {
			status, data, answered, err = cn.post(ctx, body)
			keep = err == nil
		} else {
			status, data, keep, answered, err = cn.exchange(ctx, method, path, body, hasBody)
		}
		if err == nil {
			answer(status, data)
			if keep {
				p.put(cn)
			} else {
				cn.c.Close()
			}
			return nil
		}
		cn.c.Close()
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if !reused || answered || attempt > 0 {
			return err
		}
	}
}

// refused handles a stream's upgrade that failed with err: the daemon's
// answer to the post (loading, stopping) is handed to answer; a daemon
// without the pipelined stream (400) is posted to on wakewheel-post/1
// streams from now on, one without streams (404) over HTTP; retry says to
// send the post again that way. Any other error is returned.
func (p *connPool) refused(err error, answer func(status int, data []byte)) (retry bool, _ error) {
	var refused *refusedUpgrade
	if !errors.As(err, &refused) {
		return false, err
	}
	switch {
	case refused.status == http.StatusBadRequest && refused.protocol == PostStreamPipelined:
		p.onePosts.Store(true)
	case refused.status == http.StatusNotFound:
		p.httpPosts.Store(true)
	default:
		answer(refused.status, refused.data)
		return false, nil
	}
	return true, nil
}

// errPipeClosed fails what waits on a pipelined stream the client closed
// (CloseIdle, or it idled past idleFor): nothing does, but for a post that
// took the stream just before, which Client.Post then sends again.
var errPipeClosed = errors.New("the post stream was closed idle")

// getPipe returns the pipelined post stream, dialling one if there is none
// or it failed or idled (reused says it was not dialled for this post).
func (p *connPool) getPipe(ctx context.Context) (*clientPipe, bool, error) {
	now := time.Now()
	p.mu.Lock()
	cp := p.pipe
	p.mu.Unlock()
	if cp != nil && cp.usable(now) {
		return cp, true, nil
	}
	p.dialling.Lock()
	defer p.dialling.Unlock()
	p.mu.Lock()
	cp = p.pipe
	p.mu.Unlock()
	if cp != nil {
		if cp.usable(now) { // dialled while this post waited
			return cp, true, nil
		}
		cp.fail(errPipeClosed) // closed, if it was only idle
	}
	cn, err := p.dial(ctx)
	if err != nil {
		return nil, false, err
	}
	if err := cn.upgrade(ctx, PostStreamPipelined); err != nil {
		cn.c.Close()
		return nil, false, err
	}
	cp = newClientPipe(cn)
	p.mu.Lock()
	p.pipe = cp
	p.mu.Unlock()
	return cp, false, nil
}

// postPath is the post's HTTP route.
const postPath = "/v1/obligations"

// get returns an idle connection (a post stream when stream), or dials a
// new one, checks the daemon's uid and, for a stream, switches it.
func (p *connPool) get(ctx context.Context, stream bool) (*clientConn, bool, error) {
	now := time.Now()
	p.mu.Lock()
	idle := &p.idle
	if stream {
		idle = &p.posts
	}
	for len(*idle) > 0 {
		cn := (*idle)[len(*idle)-1]
		*idle = (*idle)[:len(*idle)-1]
		if now.Sub(cn.since) < idleFor {
			p.mu.Unlock()
			return cn, true, nil
		}
		cn.c.Close()
	}
	p.mu.Unlock()
	cn, err := p.dial(ctx)
	if err != nil {
		return nil, false, err
	}
	if stream {
		if err := cn.upgrade(ctx, PostStreamProtocol); err != nil {
			cn.c.Close()
			return nil, false, err
		}
	}
	return cn, false, nil
}

// dial connects to the socket and checks the daemon's uid.
func (p *connPool) dial(ctx context.Context) (*clientConn, error) {
	var d net.Dialer
	c, err := d.DialContext(ctx, "unix", p.socket)
	if err != nil {
		return nil, err
	}
	if err := checkServer(c, p.socket); err != nil {
		c.Close()
		return nil, err
	}
	return &clientConn{c: c, br: bufio.NewReaderSize(c, 4096), raw: rawConn(c)}, nil
}

func (p *connPool) closeIdle() {
	p.mu.Lock()
	idle := append(p.idle, p.posts...)
	p.idle, p.posts = nil, nil
	cp := p.pipe
	p.mu.Unlock()
	for _, cn := range idle {
		cn.c.Close()
	}
	if cp != nil {
		cp.closeIdle()
	}
}

func (p *connPool) put(cn *clientConn) {
	cn.since = time.Now()
	p.mu.Lock()
	idle := &p.idle
	if cn.stream {
		idle = &p.posts
	}
	if len(*idle) < ClientConns {
		*idle = append(*idle, cn)
		cn = nil
	}
	p.mu.Unlock()
	if cn != nil {
		cn.c.Close()
	}
}

// bound ends the connection's reads and writes at ctx's deadline (or
// after RequestTimeout and a margin), and at once when ctx is cancelled,
// until stop is called. Without a deadline of ctx's the connection's is
// moved at most once a second (a deadline change is a timer's), and a
// context that cannot be cancelled gets no hook.
func (cn *clientConn) bound(ctx context.Context) (stop func() bool, err error) {
	deadline, ok := ctx.Deadline()
	if !ok {
		now := time.Now()
		if now.Sub(cn.armed) < rearmEvery {
			deadline = cn.deadline
		} else {
			deadline, cn.armed = now.Add(RequestTimeout+5*time.Second), now
		}
	} else {
		cn.armed = time.Time{}
	}
	if !deadline.Equal(cn.deadline) {
		if err := cn.c.SetDeadline(deadline); err != nil {
			return nil, err
		}
		cn.deadline = deadline
	}
	if ctx.Done() == nil {
		return noStop, nil
	}
	unhook := context.AfterFunc(ctx, func() { cn.c.SetDeadline(farPast) })
	return func() bool {
		if unhook() {
			return true
		}
		cn.deadline = farPast // set again at the next use
		return false
	}, nil
}

// rearmEvery is how often a connection's own deadline is moved.
const rearmEvery = time.Second

func noStop() bool { return true }

// upgrade switches the connection to the post stream of protocol
// (PostStreamProtocol or PostStreamPipelined); an answer other than 101
// comes back as *refusedUpgrade.
func (cn *clientConn) upgrade(ctx context.Context, protocol string) error {
	stop, err := cn.bound(ctx)
	if err != nil {
		return err
	}
	defer stop()
	if _, err := io.WriteString(cn.c, "POST "+PostStreamPath+" HTTP/1.1\r\nHost: wakewheel\r\nConnection: Upgrade\r\nUpgrade: "+protocol+"\r\nContent-Length: 0\r\n\r\n"); err != nil {
		return err
	}
	resp, err := http.ReadResponse(cn.br, nil)
	if err != nil {
		return fmt.Errorf("read answer: %w", err)
	}
	if resp.StatusCode == http.StatusSwitchingProtocols {
		cn.stream = protocol == PostStreamProtocol // a pipelined one is never pooled
		return nil
	}
	data, err := readAnswer(resp)
	if err != nil {
		return fmt.Errorf("read answer: %w", err)
	}
	return &refusedUpgrade{status: resp.StatusCode, data: data, protocol: protocol}
}

// post sends one post on the stream and reads its answer, into the
// connection's buffer (the answer is valid until its next use); answered
// says that some of the answer arrived.
func (cn *clientConn) post(ctx context.Context, body []byte) (status int, data []byte, answered bool, err error) {
	stop, err := cn.bound(ctx)
	if err != nil {
		return 0, nil, false, err
	}
	defer stop()
	buf := getBuffer()
	defer putBuffer(buf)
	b := binary.BigEndian.AppendUint32((*buf)[:0], uint32(len(body)))
	b = append(b, body...)
	*buf = b
	first, err := cn.roundTrip(b)
	if err != nil {
		return 0, nil, false, err
	}
	var hdr [answerHeader]byte
	k := copy(hdr[:], first)
	first = first[k:]
	if n, err := io.ReadFull(cn.br, hdr[k:]); err != nil {
		return 0, nil, k+n > 0, err
	}
	n := binary.BigEndian.Uint32(hdr[:])
	if n > maxAnswer {
		return 0, nil, true, fmt.Errorf("an answer of %d bytes is over the client's limit of %d", n, maxAnswer)
	}
	if cap(cn.answer) < int(n) || cap(cn.answer) > maxKeptAnswer {
		cn.answer = make([]byte, max(n, minAnswer))
	}
	data = cn.answer[:n]
	if len(first) > len(data) {
		return 0, nil, true, errors.New("read answer: the daemon sent more than the answer")
	}
	k = copy(data, first)
	if _, err := io.ReadFull(cn.br, data[k:]); err != nil {
		return 0, nil, true, fmt.Errorf("read answer: %w", err)
	}
	return int(binary.BigEndian.Uint16(hdr[4:])), data, true, nil
}

// farPast ends a connection's blocked read or write at once.
var farPast = time.Unix(1, 0)

// exchange writes the request and reads the whole answer. keep says the
// connection may carry another request; answered, that some of the answer
// arrived.
func (cn *clientConn) exchange(ctx context.Context, method, path string, body []byte, hasBody bool) (status int, data []byte, keep, answered bool, err error) {
	stop, err := cn.bound(ctx)
	if err != nil {
		return 0, nil, false, false, err
	}
	defer stop()

	buf := getBuffer()
	defer putBuffer(buf)
	b := append((*buf)[:0], method...)
	b = append(b, ' ')
	b = append(b, path...)
	b = append(b, " HTTP/1.1\r\nHost: wakewheel\r\n"...)
	if hasBody {
		b = append(b, "Content-Type: application/json\r\nContent-Length: "...)
		b = strconv.AppendInt(b, int64(len(body)), 10)
		b = append(b, "\r\n"...)
	}
	b = append(b, "\r\n"...)
	b = append(b, body...)
	*buf = b
	if _, err := cn.c.Write(b); err != nil {
		return 0, nil, false, false, err
	}
	if _, err := cn.br.Peek(1); err != nil {
		return 0, nil, false, false, err
	}
	resp, err := http.ReadResponse(cn.br, nil)
	if err != nil {
		return 0, nil, false, true, fmt.Errorf("read answer: %w", err)
	}
	data, err = readAnswer(resp)
	if err != nil {
		return 0, nil, false, true, fmt.Errorf("read answer: %w", err)
	}
	return resp.StatusCode, data, !resp.Close, true, nil
}

// readAnswer reads the whole answer, in one allocation when its length is
// known.
func readAnswer(resp *http.Response) ([]byte, error) {
	defer resp.Body.Close()
	if n := resp.ContentLength; n >= 0 {
		if n > maxAnswer {
			return nil, fmt.Errorf("an answer of %d bytes is over the client's limit of %d", n, maxAnswer)
		}
		data := make([]byte, n)
		_, err := io.ReadFull(resp.Body, data)
		return data, err
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswer+1))
	if err == nil && len(data) > maxAnswer {
		err = errors.New("an answer is over the client's limit")
	}
	return data, err
}

// maxAnswer bounds one answer read by the client.
const maxAnswer = 64 << 20
