package api

import (
	"context"
	"encoding/json"
	"net/http"

	ob "github.com/wakewheel/wakewheel/obligations"
)

// The post: POST /v1/obligations, and each post of the post stream
// (poststream.go), served by the same postOne.

// post is the hot route: its body and answer go through postjson.go, and
// its buffers are pooled.
func (h obligationRoutes) post(w http.ResponseWriter, r *http.Request) error {
	buf := getBuffer()
	defer putBuffer(buf)
	body, err := readBody(r, *buf)
	*buf = body
	if err != nil {
		return err
	}
	res, err := h.postOne(r.Context(), body)
	if err != nil {
		return err
	}
	out := appendPostAnswer((*buf)[:0], &res)
	*buf = out
	return writeBody(w, http.StatusOK, out)
}

// appendPostAnswer appends res as writeJSON writes it: by hand, or by
// encoding/json for what the hand-written writer leaves to it.
func appendPostAnswer(b []byte, res *PostResult) []byte {
	if out, ok := appendPostResult(b, res); ok {
		return out
	}
	r := *res                // only this branch's copy goes to the heap
	j, _ := json.Marshal(&r) // a time out of range: encoding/json's error, as writeJSON's
	return append(append(b, j...), '\n')
}

// postOne reads a post's body and posts it (to another host of the fleet
// when the service routes): the answer is durable when it is returned.
// body is read whole before the service is called, so its array may take
// the answer.
func (h obligationRoutes) postOne(ctx context.Context, body []byte) (PostResult, error) {
	req, err := readPost(body)
	if err != nil {
		return PostResult{}, err
	}
	o := req.obligation()
	var got ob.Obligation
	var route string
	if rt, ok := h.svc.(Router); ok {
		got, route, err = rt.Route(ctx, o, req.Create, req.Wait)
	} else {
		got, err = h.svc.Post(ctx, o, req.Create)
	}
	if err != nil {
		return PostResult{}, err
	}
	return postResult(got, route), nil
}

// readPost reads a post's body: by hand, or by encoding/json for what the
// hand-written reader leaves to it.
func readPost(body []byte) (PostRequest, error) {
	if req, ok := parsePostRequest(body); ok {
		return req, nil
	}
	var slow PostRequest // only this branch's goes to the heap
	if err := decodeJSON(body, &slow); err != nil {
		return PostRequest{}, err
	}
	return slow, nil
}

// obligation is what the request posts.
func (req *PostRequest) obligation() ob.Obligation {
	return ob.Obligation{Lane: req.Lane, ID: req.ID, Class: ob.Class(req.Class), Body: req.Body,
		Locator: req.Locator, Key: req.Key, Canary: req.Canary}
}

// postResult answers a post of got (route in a fleet).
func postResult(got ob.Obligation, route string) PostResult {
	dup := got.Duplicate
	got.Duplicate = false
	return PostResult{Obligation: got, Duplicate: dup, Route: route}
}
