package api

import (
	"context"
	"net/http"

	ob "github.com/wakewheel/wakewheel/obligations"
)

// The posts a pipelined stream read at once, served together: one call of
// the service for all of them (one lock, one unit of its grouped commit,
// one wait until they are durable), then their answers in one write. Each
// post keeps its own answer: one that cannot be read, is refused, or is a
// duplicate is answered so, and the others are posted.

// EachPoster is an Obligations that posts many at once, each on its own
// (*wakes.Service): errs[i] is the error of obs[i] alone, out[i] the
// obligation as stored, and all of them are durable when it returns.
// The pipelined stream serves the posts of one read through it when the
// service is no Router (a fleet member posts each to its lane's home).
type EachPoster interface {
	PostEach(ctx context.Context, obs []ob.Obligation, create []bool) (out []ob.Obligation, errs []error)
}

// maxPipeBatch bounds the posts of one batch: the posts of one read
// beyond it go in the next.
const maxPipeBatch = 128

// pipeBatch is the posts of one read: their ids, and their bodies one
// after another in body (body i ends at ends[i]).
type pipeBatch struct {
	ids  []uint32
	ends []int
	body *[]byte // pooled
}

func newPipeBatch() *pipeBatch {
	b := &pipeBatch{body: getBuffer()}
	*b.body = (*b.body)[:0]
	return b
}

// add copies a post read (its body is the reader's) into the batch.
func (b *pipeBatch) add(id uint32, body []byte) {
	*b.body = append(*b.body, body...)
	b.ids, b.ends = append(b.ids, id), append(b.ends, len(*b.body))
}

func (b *pipeBatch) len() int { return len(b.ids) }

// post is the body of the batch's post i.
func (b *pipeBatch) post(i int) []byte {
	from := 0
	if i > 0 {
		from = b.ends[i-1]
	}
	return (*b.body)[from:b.ends[i]]
}

func (b *pipeBatch) release() { putBuffer(b.body) }

// batchFunc serves the posts of b within ctx and appends their answer
// frames (wakewheel-post/2, each with its post's id) to out.
type batchFunc func(ctx context.Context, b *pipeBatch, out []byte) []byte

// eachPoster is the stream's batchFunc, nil when the service posts one by
// one (a Router, or no EachPoster).
func (h obligationRoutes) eachPoster() batchFunc {
	if _, routes := h.svc.(Router); routes {
		return nil
	}
	each, ok := h.svc.(EachPoster)
	if !ok {
		return nil
	}
	return func(ctx context.Context, b *pipeBatch, out []byte) []byte { return h.postBatch(ctx, each, b, out) }
}

// postBatch serves the posts of b as postAnswer serves one: the same
// reader, the same error table, traffic reported for each, a panic
// answered 500 (for every post of the batch) and logged.
func (h obligationRoutes) postBatch(ctx context.Context, each EachPoster, b *pipeBatch, out []byte) (reply []byte) {
	front := len(out)
	defer func() {
		if p := recover(); p != nil {
			status, code, msg := h.srv.recovered(p, PostStreamPath)
			reply = out[:front]
			for i := range b.len() {
				at := len(reply)
				reply = appendError(append(reply, make([]byte, pipeAnswerHeader)...), code, msg)
				framePipeAnswer(reply[at:], status, b.ids[i])
			}
		}
	}()
	n := b.len()
	errs := make([]error, n)
	obs := make([]ob.Obligation, 0, n)
	create := make([]bool, 0, n)
	at := make([]int, 0, n) // obs[k] is post at[k]
	for i := range n {
		h.srv.traffic("post")
		req, err := readPost(b.post(i))
		if err != nil {
			errs[i] = err
			continue
		}
		obs, create, at = append(obs, req.obligation()), append(create, req.Create), append(at, i)
	}
	got := make([]ob.Obligation, n)
	if len(obs) > 0 {
		stored, failed := each.PostEach(ctx, obs, create)
		for k, i := range at {
			got[i], errs[i] = stored[k], failed[k]
		}
	}
	for i := range n {
		start := len(out)
		out = append(out, make([]byte, pipeAnswerHeader)...)
		status := http.StatusOK
		if errs[i] != nil {
			var code, msg string
			status, code, msg = h.srv.failure(errs[i])
			out = appendError(out, code, msg)
		} else {
			res := postResult(got[i], "")
			out = appendPostAnswer(out, &res)
		}
		framePipeAnswer(out[start:], status, b.ids[i])
	}
	return out
}
