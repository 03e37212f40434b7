package api

import (
	"bufio"
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"sync"
	"time"
)

// The client's pipelined post stream (wakewheel-post/2, poststream.go):
// every goroutine posting through one Client shares it. A post is given
// the next id, handed to the stream's batchWriter (postwriter.go: posts
// handed over during a write go out together in the next) and waits for
// its answer, which the stream's reader hands to it by its id. The reader
// runs only while posts wait: the post that finds none reading reads
// itself (or, if its ctx may end, starts a goroutine to), hands its
// reading on to a goroutine once its own answer is in and others wait,
// and the reading ends once no post waits, so an idle Client holds no
// goroutine, and a Client with one poster reads each answer on the
// poster's goroutine. A connection that fails (a write or read error, an answer
// the client cannot place, no answer for RequestTimeout and a margin)
// fails every post waiting on it, each of which the caller may send again
// with its id (Client.Post does): whatever the daemon stored of them it
// stores once.

// clientPipe is one pipelined post stream.
type clientPipe struct {
	cn *clientConn
	br *bufio.Reader // the answers, a batch in one read (pipeBuffer), from got, cn.br, then rs
	rs *rawStream    // the connection's reads and writes, raw where they can be (rawstream.go)
	w  batchWriter   // writes to rs
	// trip and got: a post alone on the stream (one poster) is written and
	// its answer's first bytes read by one raw round trip (rawtrip.go),
	// into tripIn; got is what of them the reader has not yet taken.
	trip        *rawTrip
	tripIn, got []byte

	mu      sync.Mutex
	waiting map[uint32]*pipeWait
	next    uint32
	reading bool
	failed  error
	used    time.Time // the last post, for idleFor
	armed   time.Time // when the connection's deadline was last moved
}

// pipeWait is one post waiting for its answer: done receives once the
// answer (status and data) or the stream's error (err) is in.
type pipeWait struct {
	done      chan struct{}
	status    int
	data      []byte
	err       error
	abandoned bool // its caller stopped waiting (under clientPipe.mu)
}

var pipeWaits = sync.Pool{New: func() any { return &pipeWait{done: make(chan struct{}, 1)} }}

func newClientPipe(cn *clientConn) *clientPipe {
	p := &clientPipe{cn: cn, rs: newRawStream(cn.c, cn.raw), waiting: map[uint32]*pipeWait{}, used: time.Now()}
	p.w.c = p.rs
	p.br = bufio.NewReaderSize(pipeSource{p}, pipeBuffer)
	return p
}

// pipeSource is what the pipe's reader reads: the bytes a raw round trip
// got, then what the connection's reader holds (read before the stream
// switched), then the connection.
type pipeSource struct{ p *clientPipe }

func (s pipeSource) Read(b []byte) (int, error) {
	p := s.p
	if len(p.got) > 0 {
		n := copy(b, p.got)
		p.got = p.got[n:]
		return n, nil
	}
	if p.cn.br.Buffered() > 0 {
		return p.cn.br.Read(b)
	}
	return p.rs.Read(b)
}

// tripAlone writes b and reads the first bytes of what answers it by one
// raw round trip, if b is alone on the stream and nothing is left unread;
// ran says it did.
func (p *clientPipe) tripAlone(b []byte) (ran bool, err error) {
	cn := p.cn
	if cn.raw == nil || len(b) > rawFrame || p.br.Buffered() > 0 || cn.br.Buffered() > 0 || len(p.got) > 0 {
		return false, nil
	}
	return p.w.alone(func() error {
		if p.trip == nil {
			p.trip, p.tripIn = newRawTrip(), make([]byte, 4096)
		}
		sent, got, err := p.trip.run(cn.raw, b, p.tripIn)
		p.got = p.tripIn[:got]
		if sent == len(b) {
			return nil // written; an error of the read the reader meets again
		}
		n := 0
		if err == nil {
			n, err = cn.c.Write(b[sent:])
		}
		if err != nil && sent+n == 0 {
			return unsentError{err} // nothing of it left: it may be sent again
		}
		return err
	})
}

// usable says the stream may take a post at now: it has not failed, and
// it was not left idle for idleFor (the daemon may have closed it).
func (p *clientPipe) usable(now time.Time) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.failed == nil && (len(p.waiting) > 0 || now.Sub(p.used) < idleFor)
}

// post sends body and waits for its answer, or for ctx. release must be
// called once the answer's data is no longer used. sent says the post
// went out (or was handed to the write under way): the daemon may have
// stored it, so only a retry by its caller, who knows the id, may send it
// again.
func (p *clientPipe) post(ctx context.Context, body []byte) (status int, data []byte, release func(), sent bool, err error) {
	w := pipeWaits.Get().(*pipeWait)
	now := time.Now()
	p.mu.Lock()
	if p.failed != nil {
		err := p.failed
		p.mu.Unlock()
		pipeWaits.Put(w)
		return 0, nil, nil, false, err
	}
	id := p.next
	p.next++
	p.waiting[id] = w
	p.used = now
	if now.Sub(p.armed) >= rearmEvery { // the connection's bound, moved at most once a second
		p.armed = now
		p.cn.c.SetDeadline(now.Add(RequestTimeout + 5*time.Second))
	}
	read := !p.reading
	p.reading = true
	others := len(p.waiting) > 1
	p.mu.Unlock()
	lead := read && ctx.Done() == nil // no ctx to watch while reading: this goroutine reads
	if read && !lead {
		go p.read(nil)
	}

	buf := getBuffer()
	b := binary.BigEndian.AppendUint32((*buf)[:0], uint32(len(body)))
	b = binary.BigEndian.AppendUint32(b, id)
	b = append(b, body...)
	*buf = b
	ran, werr := false, error(nil)
	if lead && !others {
		ran, werr = p.tripAlone(b)
	}
	if !ran {
		werr = p.w.write(b, others)
	}
	if werr != nil {
		p.fail(werr)
	}
	putBuffer(buf)
	sent = !unsent(werr) // a write that failed may have delivered the frame: only a retry by its id may send it again
	if lead {
		p.read(w)
	}

	select {
	case <-w.done:
	case <-ctx.Done():
		p.mu.Lock()
		select {
		case <-w.done: // answered meanwhile
			p.mu.Unlock()
		default:
			w.abandoned = true // the reader drops its answer; w is not reused
			p.mu.Unlock()
			return 0, nil, nil, sent, ctx.Err()
		}
	}
	if w.err != nil {
		err := w.err
		w.err = nil
		pipeWaits.Put(w)
		return 0, nil, nil, sent, err
	}
	return w.status, w.data, func() { pipeWaits.Put(w) }, true, nil
}

// read hands each answer to its post until none waits or the stream
// fails; a poster reading for its own post (mine) stops at its answer,
// and has a goroutine of the stream's read on if posts still wait.
func (p *clientPipe) read(mine *pipeWait) {
	var hdr [pipeAnswerHeader]byte
	for {
		if _, err := io.ReadFull(p.br, hdr[:]); err != nil {
			p.fail(fmt.Errorf("read answer: %w", err))
			return
		}
		n := binary.BigEndian.Uint32(hdr[:])
		id := binary.BigEndian.Uint32(hdr[6:])
		if n > maxAnswer {
			p.fail(fmt.Errorf("an answer of %d bytes is over the client's limit of %d", n, maxAnswer))
			return
		}
		p.mu.Lock()
		w := p.waiting[id]
		delete(p.waiting, id)
		abandoned := w != nil && w.abandoned
		p.mu.Unlock()
		if w == nil {
			p.fail(fmt.Errorf("read answer: the daemon answered post %d, which is not waiting", id))
			return
		}
		data := w.data
		if abandoned || cap(data) < int(n) || cap(data) > maxKeptAnswer {
			data = make([]byte, max(n, minAnswer))
		}
		data = data[:n]
		if _, err := io.ReadFull(p.br, data); err != nil {
			p.mu.Lock()
			p.waiting[id] = w // failed with the others
			p.mu.Unlock()
			p.fail(fmt.Errorf("read answer: %w", err))
			return
		}
		w.status, w.data = int(binary.BigEndian.Uint16(hdr[4:])), data
		w.done <- struct{}{}
		p.mu.Lock()
		if len(p.waiting) == 0 {
			p.reading = false
			p.mu.Unlock()
			return
		}
		p.mu.Unlock()
		if w == mine {
			go p.read(nil)
			return
		}
	}
}

// closeIdle ends the stream if no post waits on it.
func (p *clientPipe) closeIdle() {
	p.mu.Lock()
	idle := len(p.waiting) == 0
	p.mu.Unlock()
	if idle {
		p.fail(errPipeClosed)
	}
}

// fail ends the stream: every post waiting gets err, and later posts
// find it failed.
func (p *clientPipe) fail(err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.failed == nil {
		p.failed = err
		p.cn.c.Close()
	}
	for id, w := range p.waiting {
		delete(p.waiting, id)
		w.err = p.failed
		w.done <- struct{}{}
	}
	p.reading = false
}
