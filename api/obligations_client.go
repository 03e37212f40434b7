package api

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"time"

	ob "github.com/wakewheel/wakewheel/obligations"
)

func lanePath(lane, verb string) string {
	return "/v1/lanes/" + url.PathEscape(lane) + "/" + verb
}

// Post posts an obligation, exactly once (post_retry.go): without an ID it
// gets a fresh one here, and a post whose connection failed is sent again
// with the same ID. A duplicate answer to a retry of an ID made here is this
// very post, so it is not reported as a duplicate.
func (c *Client) Post(ctx context.Context, req PostRequest) (PostResult, error) {
	own := req.ID == ""
	if own {
		req.ID = NewPostID()
	}
	buf := getBuffer()
	defer putBuffer(buf)
	body := appendPostRequest((*buf)[:0], &req)
	*buf = body
	var out PostResult
	n, err := withRetry(ctx, func() error {
		return c.send(ctx, http.MethodPost, "/v1/obligations", body, true, func(data []byte) error {
			var ok bool
			if out, ok = parsePostAnswer(data, &req); ok { // the strings it echoes are req's
				return nil
			}
			out = PostResult{}
			return json.Unmarshal(data, &out)
		})
	})
	if own && n > 1 {
		out.Duplicate = false
	}
	return out, err
}

// Lanes lists every lane's cursors.
func (c *Client) Lanes(ctx context.Context) ([]ob.LaneStatus, error) {
	var out []ob.LaneStatus
	return out, c.Do(ctx, http.MethodGet, "/v1/lanes", nil, &out)
}

// OpenLane creates a lane so producers may post to it.
func (c *Client) OpenLane(ctx context.Context, lane string) (ob.LaneStatus, error) {
	var out ob.LaneStatus
	return out, c.Do(ctx, http.MethodPost, "/v1/lanes", OpenLaneRequest{Lane: lane}, &out)
}

// CloseLane closes a lane; force discards unconsumed work.
func (c *Client) CloseLane(ctx context.Context, lane string, force bool) (CloseResult, error) {
	var out CloseResult
	return out, c.Do(ctx, http.MethodDelete, withFlag("/v1/lanes/"+url.PathEscape(lane), "force", force), nil, &out)
}

// Digest returns a lane's digest without delivering it.
func (c *Client) Digest(ctx context.Context, lane, who string) (ob.Digest, error) {
	var out ob.Digest
	return out, c.Do(ctx, http.MethodGet, lanePath(lane, "digest")+"?who="+url.QueryEscape(who), nil, &out)
}

// WaitOnce is one long-poll request (the daemon cuts timeout to MaxWait;
// callers loop for longer waits).
func (c *Client) WaitOnce(ctx context.Context, lane, who, after string, timeout time.Duration) (WaitResult, error) {
	q := url.Values{}
	q.Set("timeout", timeout.String())
	if who != "" {
		q.Set("who", who)
	}
	if after != "" {
		q.Set("after", after)
	}
	var out WaitResult
	return out, c.Do(ctx, http.MethodGet, lanePath(lane, "wait")+"?"+q.Encode(), nil, &out)
}

// Ack consumes a lane up to upto; action names a consequential action.
func (c *Client) Ack(ctx context.Context, lane string, upto uint64, action string) (ob.LaneStatus, error) {
	var out ob.LaneStatus
	return out, c.Do(ctx, http.MethodPost, lanePath(lane, "ack"), AckRequest{Upto: &upto, Action: action}, &out)
}

// Park checkpoints a lane's CONSUMED cursor.
func (c *Client) Park(ctx context.Context, lane string) (ob.Checkpoint, error) {
	var out ob.Checkpoint
	return out, c.Do(ctx, http.MethodPost, lanePath(lane, "park"), nil, &out)
}

// Resume delivers the digest since cp (nil: the lane's last park).
func (c *Client) Resume(ctx context.Context, lane, who string, cp *ob.Checkpoint) (ob.Digest, error) {
	var out ob.Digest
	return out, c.Do(ctx, http.MethodPost, lanePath(lane, "resume"), ResumeRequest{Who: who, Checkpoint: cp}, &out)
}

// Ledger returns one page of the ledger after sequence number after.
func (c *Client) Ledger(ctx context.Context, after uint64, limit int) (LedgerPage, error) {
	var out LedgerPage
	return out, c.Do(ctx, http.MethodGet, fmt.Sprintf("/v1/ledger?after=%d&limit=%d", after, limit), nil, &out)
}

// LedgerAll returns the whole ledger.
func (c *Client) LedgerAll(ctx context.Context) ([]ob.Entry, error) {
	var all []ob.Entry
	var after uint64
	for {
		page, err := c.Ledger(ctx, after, 100000)
		if err != nil {
			return nil, err
		}
		all = append(all, page.Entries...)
		if len(page.Entries) == 0 || page.Next == after {
			return all, nil
		}
		after = page.Next
	}
}
