package api

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"
)

// The client's connections: HTTP/1.1 over the unix socket, one request at a
// time on a connection, written and read by the calling goroutine.
// net/http's Transport hands every request to two goroutines of its
// connection and back, and with 64 posters that cost the client more CPU
// than the daemon spent on the post. The request is one write; the answer
// is read with net/http's own parser.

// idleFor is how long an idle connection is reused: well under the
// daemon's idle timeout (its ReadTimeout, RequestTimeout), so the daemon
// does not close one just as a request is written to it.
const idleFor = 10 * time.Second

// connPool keeps up to ClientConns idle connections to one socket.
type connPool struct {
	socket string
	mu     sync.Mutex
	idle   []*clientConn // the most recently used last
}

type clientConn struct {
	c     net.Conn
	br    *bufio.Reader
	since time.Time // idle since
}

// exchange sends one request and returns the answer's status and body.
// A request on a reused connection that the daemon had closed (it
// restarted, or it timed the connection out) is sent once more on a new
// one: nothing of it was answered. A live daemon answers every request
// it reads (a panic is answered 500, Shutdown waits for requests in
// flight), so only one that died after applying it and was restarted
// before the re-send could see it twice; a post is idempotent by its id
// (Client.Post's own retries rely on that), an ack up to a sequence number
// and a push to a time by their effect.
func (p *connPool) exchange(ctx context.Context, method, path string, body []byte, hasBody bool) (int, []byte, error) {
	for attempt := 0; ; attempt++ {
		cn, reused, err := p.get(ctx)
		if err != nil {
			return 0, nil, err
		}
		status, data, keep, answered, err := cn.exchange(ctx, method, path, body, hasBody)
		if err == nil && keep {
			p.put(cn)
		} else {
			cn.c.Close()
		}
		if err != nil && ctx.Err() != nil {
			return 0, nil, ctx.Err()
		}
		if err != nil && reused && !answered && attempt == 0 {
			continue
		}
		return status, data, err
	}
}

func (p *connPool) get(ctx context.Context) (*clientConn, bool, error) {
	now := time.Now()
	p.mu.Lock()
	for len(p.idle) > 0 {
		cn := p.idle[len(p.idle)-1]
		p.idle = p.idle[:len(p.idle)-1]
		if now.Sub(cn.since) < idleFor {
			p.mu.Unlock()
			return cn, true, nil
		}
		cn.c.Close()
	}
	p.mu.Unlock()
	var d net.Dialer
	c, err := d.DialContext(ctx, "unix", p.socket)
	if err != nil {
		return nil, false, err
	}
	if err := checkServer(c, p.socket); err != nil {
		c.Close()
		return nil, false, err
	}
	return &clientConn{c: c, br: bufio.NewReaderSize(c, 4096)}, false, nil
}

func (p *connPool) put(cn *clientConn) {
	cn.since = time.Now()
	p.mu.Lock()
	if len(p.idle) < ClientConns {
		p.idle = append(p.idle, cn)
		cn = nil
	}
	p.mu.Unlock()
	if cn != nil {
		cn.c.Close()
	}
}

// farPast ends a connection's blocked read or write at once.
var farPast = time.Unix(1, 0)

// exchange writes the request and reads the whole answer. keep says the
// connection may carry another request; answered, that some of the answer
// arrived.
func (cn *clientConn) exchange(ctx context.Context, method, path string, body []byte, hasBody bool) (status int, data []byte, keep, answered bool, err error) {
	deadline, ok := ctx.Deadline()
	if !ok {
		deadline = time.Now().Add(RequestTimeout + 5*time.Second)
	}
	if err := cn.c.SetDeadline(deadline); err != nil {
		return 0, nil, false, false, err
	}
	stop := context.AfterFunc(ctx, func() { cn.c.SetDeadline(farPast) })
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
