package api

import (
	"context"
	"encoding/binary"
	"net"
	"sync"
	"sync/atomic"
)

// The daemon's side of a pipelined post stream (wakewheel-post/2,
// poststream.go): every post read is served at once, beside the posts
// still in flight, and answered with its id as soon as it is durable;
// answers ready together go out in one write (postwriter.go). On a stream
// that never had two posts in flight (a client with one poster) each post
// is served by the reader itself, whose answer's write then reads the
// next post (rawtrip.go), as on wakewheel-post/1.

// Frame headers of wakewheel-post/2: a post's length and id; an answer's
// length, status and id.
const (
	pipePostHeader   = 8
	pipeAnswerHeader = 10
)

// pipeDepth bounds the posts in flight on one pipelined stream: the reader
// reads no further until one is answered.
const pipeDepth = 256

var switchedPipe = []byte("HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: " + PostStreamPipelined + "\r\n\r\n")

// postFunc serves one post: its answer's status, and its JSON appended to
// out.
type postFunc func(ctx context.Context, body, out []byte) (status int, reply []byte)

// pipe is one pipelined stream's posts in flight, and the workers that
// serve them: a post read is handed to a worker waiting for one, or to a
// new worker if none waits; a worker then waits for the next until the
// stream ends. So the stream has as many workers as it had posts in flight
// at once (at most pipeDepth), whose stacks have grown to what a post
// needs, instead of a goroutine a post that grows its stack each time.
type pipe struct {
	st       *postStream
	post     postFunc
	batch    batchFunc // nil: each post on its own
	w        batchWriter
	wg       sync.WaitGroup // the workers
	inflight atomic.Int32   // read and not yet handed to the writer
	slots    chan struct{}
	jobs     chan pipeJob  // to a waiting worker
	ended    chan struct{} // closed when the reader stops: the workers go
}

// pipeJob is one post read, for a worker: its ctx, id and body (a pooled
// buffer); or, with batch set, the posts of one read.
type pipeJob struct {
	ctx   context.Context
	id    uint32
	body  *[]byte
	batch *pipeBatch
}

// servePipelined reads posts from in and serves them concurrently until
// the client closes the stream, it idles past RequestTimeout, a frame is
// malformed, or Shutdown; then it waits for every post in flight to be
// answered.
func (ss *streamSet) servePipelined(c net.Conn, in *streamIO, post postFunc, batch batchFunc) {
	ss.run(c, switchedPipe, func(st *postStream) { servePipe(st, in, post, batch) })
}

func servePipe(st *postStream, in *streamIO, post postFunc, batch batchFunc) {
	p := &pipe{st: st, post: post, batch: batch, w: batchWriter{c: st.c}, slots: make(chan struct{}, pipeDepth),
		jobs: make(chan pipeJob), ended: make(chan struct{})}
	defer p.wg.Wait()
	defer close(p.ended)
	buf := getBuffer()
	defer func() { putBuffer(buf) }()
	// shared: a post was read while another was in flight or behind it.
	// From then on every post is served beside the reader, which goes on
	// reading: a post served by the reader would hold the posts behind it
	// unread until it is durable, and they would miss the commit group
	// it is in.
	shared := false
	workers := 0
	for st.arm() {
		n, id, body, err := in.frameOf(pipePostHeader)
		if err != nil {
			return // closed, idle, or Shutdown
		}
		if body == nil {
			status, out := lengthRefused(n, pipeAnswerHeader)
			for range pipeDepth { // the posts before it are answered first
				p.slots <- struct{}{}
			}
			_ = p.w.write(framePipeAnswer(out, status, id), false)
			return
		}
		ctx := st.enter()
		alone := p.inflight.Load() == 0 && !in.buffered() && p.w.idle()
		shared = shared || !alone
		if !shared { // one poster so far: served here, its answer's write reads the next post
			status, out := post(ctx, body, append((*buf)[:0], make([]byte, pipeAnswerHeader)...))
			st.leave()
			*buf = out
			if err := in.answer(framePipeAnswer(out, status, id)); err != nil {
				return
			}
			continue
		}
		var job pipeJob
		if p.batch != nil {
			job = pipeJob{ctx: ctx, batch: p.gather(in, id, body)}
		} else {
			p.slots <- struct{}{}
			b := getBuffer()
			*b = append((*b)[:0], body...)
			p.inflight.Add(1)
			job = pipeJob{ctx: ctx, id: id, body: b}
		}
		if workers == pipeDepth {
			p.jobs <- job
			continue
		}
		select {
		case p.jobs <- job:
		default:
			workers++
			p.wg.Add(1)
			go p.work(job)
		}
	}
}

// gather is the batch of the post read (id, body) and of every post
// behind it already whole in the buffer, up to maxPipeBatch: each takes a
// slot (the reader waits while pipeDepth posts are in flight).
func (p *pipe) gather(in *streamIO, id uint32, body []byte) *pipeBatch {
	b := newPipeBatch()
	for {
		p.slots <- struct{}{}
		b.add(id, body)
		if b.len() == maxPipeBatch || !in.whole(pipePostHeader) {
			break
		}
		_, id, body, _ = in.frameOf(pipePostHeader) // whole: no read, no error
	}
	p.inflight.Add(int32(b.len()))
	return b
}

// work serves job, then each post handed to it, until the stream ends.
func (p *pipe) work(job pipeJob) {
	defer p.wg.Done()
	for {
		if job.batch != nil {
			p.serveBatch(job.ctx, job.batch)
		} else {
			p.serve(job.ctx, job.id, job.body)
		}
		select {
		case job = <-p.jobs:
		case <-p.ended:
			return
		}
	}
}

// serve answers one post read by the stream's reader (its body in b).
func (p *pipe) serve(ctx context.Context, id uint32, b *[]byte) {
	buf := getBuffer()
	status, out := p.post(ctx, *b, append((*buf)[:0], make([]byte, pipeAnswerHeader)...))
	p.st.leave()
	*buf = out
	putBuffer(b)
	if err := p.w.write(framePipeAnswer(out, status, id), p.inflight.Load() > 1); err != nil {
		p.st.c.Close() // the stream is lost: its reader stops
	}
	putBuffer(buf)
	p.inflight.Add(-1)
	<-p.slots
}

// serveBatch answers the posts of one read, in one write once all of them
// are durable.
func (p *pipe) serveBatch(ctx context.Context, b *pipeBatch) {
	n := b.len()
	buf := getBuffer()
	out := p.batch(ctx, b, (*buf)[:0])
	p.st.leave()
	*buf = out
	b.release()
	if err := p.w.write(out, int(p.inflight.Load()) > n); err != nil {
		p.st.c.Close() // the stream is lost: its reader stops
	}
	putBuffer(buf)
	p.inflight.Add(int32(-n))
	for range n {
		<-p.slots
	}
}

// framePipeAnswer fills a pipelined answer's header in front of its body.
func framePipeAnswer(out []byte, status int, id uint32) []byte {
	binary.BigEndian.PutUint32(out, uint32(len(out)-pipeAnswerHeader))
	binary.BigEndian.PutUint16(out[4:], uint16(status))
	binary.BigEndian.PutUint32(out[6:], id)
	return out
}
