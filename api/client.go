package api

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"syscall"
	"time"

	"github.com/wakewheel/wakewheel"
)

// ErrDaemonDown means nothing answers on the socket.
var ErrDaemonDown = errors.New("api: the daemon is not running")

// ClientConns is how many idle connections a Client keeps to its daemon
// (clientconn.go): as many as the concurrent callers it expects. With
// net/http's default of 2, 64 goroutines posting through one Client closed
// and redialled a connection for most requests, and lost 70% of the
// in-process rate.
const ClientConns = 64

// Client talks to a daemon over its unix socket. It is safe for concurrent
// use; share one between goroutines.
type Client struct {
	socket string
	conns  *connPool
	// loadingWait bounds the wait through a loading daemon (front.go):
	// LoadingWait unless set by WithLoadingWait.
	loadingWait *time.Duration
}

// NewClient returns a client for the daemon listening on socket. Every
// connection is checked before the first byte is sent: a socket served by
// another uid is refused with ErrUntrustedDaemon.
func NewClient(socket string) *Client {
	return &Client{socket: socket, conns: &connPool{socket: socket}}
}

// CloseIdle closes the client's idle connections, and its post stream
// unless a post waits on it; a later request connects again.
func (c *Client) CloseIdle() { c.conns.closeIdle() }

// Do sends one request with an optional JSON body and decodes the JSON
// answer into out. An error answer comes back as *Error. While the daemon
// answers that it is loading, the request is sent again, for at most
// LoadingWait (front.go).
func (c *Client) Do(ctx context.Context, method, path string, body, out any) error {
	var b []byte
	if body != nil {
		var err error
		if b, err = json.Marshal(body); err != nil {
			return err
		}
	}
	return c.send(ctx, method, path, b, body != nil, func(data []byte) error {
		if out == nil {
			return nil
		}
		return json.Unmarshal(data, out)
	})
}

// send sends one request (with body when hasBody) and hands a success
// answer to decode; through a load (throughLoading) like every request.
func (c *Client) send(ctx context.Context, method, path string, body []byte, hasBody bool, decode func([]byte) error) error {
	return throughLoading(ctx, c.loadingBound(), func() error { return c.sendOnce(ctx, method, path, body, hasBody, decode) })
}

func (c *Client) sendOnce(ctx context.Context, method, path string, body []byte, hasBody bool, decode func([]byte) error) error {
	var answered error
	err := c.conns.exchange(ctx, method, path, body, hasBody, func(status int, data []byte) {
		answered = answerOf(method, path, status, data, decode)
	})
	if err != nil {
		if errors.Is(err, ErrUntrustedDaemon) {
			return err
		}
		if errors.Is(err, syscall.ENOENT) || errors.Is(err, syscall.ECONNREFUSED) {
			return fmt.Errorf("%w (no daemon answers on %s; start one with `wakewheel daemon`)", ErrDaemonDown, c.socket)
		}
		return fmt.Errorf("api: %s %s: %w", method, path, err)
	}
	return answered
}

// answerOf is what an answer means: an error answer as *Error, a success
// handed to decode.
func answerOf(method, path string, status int, data []byte, decode func([]byte) error) error {
	if status >= 300 {
		var e Error
		if json.Unmarshal(data, &e) == nil && e.Err.Message != "" {
			e.status = status
			return &e
		}
		return fmt.Errorf("api: %s %s: HTTP %d: %s", method, path, status, bytes.TrimSpace(data))
	}
	if err := decode(data); err != nil {
		return fmt.Errorf("api: decode answer of %s %s: %w", method, path, err)
	}
	return nil
}

// Status fetches the daemon's status.
func (c *Client) Status(ctx context.Context) (Status, error) {
	var st Status
	return st, c.Do(ctx, http.MethodGet, "/v1/status", nil, &st)
}

// DeadlinePage fetches one page of pending deadlines whose key starts with
// prefix, after the cursor after ("" for the first), at most limit (0: the
// daemon's default).
func (c *Client) DeadlinePage(ctx context.Context, prefix, after string, limit int) (DeadlinePage, error) {
	q := url.Values{}
	q.Set("prefix", prefix)
	if after != "" {
		q.Set("after", after)
	}
	if limit > 0 {
		q.Set("limit", fmt.Sprint(limit))
	}
	var out DeadlinePage
	return out, c.Do(ctx, http.MethodGet, "/v1/deadlines?"+q.Encode(), nil, &out)
}

// Deadlines lists every pending deadline whose key starts with prefix, in
// key order, page by page: for a prefix that selects few.
func (c *Client) Deadlines(ctx context.Context, prefix string) ([]Deadline, error) {
	var out []Deadline
	after := ""
	for {
		page, err := c.DeadlinePage(ctx, prefix, after, MaxDeadlinePage)
		if err != nil {
			return nil, err
		}
		out = append(out, page.Deadlines...)
		if page.Next == "" {
			return out, nil
		}
		after = page.Next
	}
}

// Remind creates or moves a reminder.
func (c *Client) Remind(ctx context.Context, req ReminderRequest) (ReminderResult, error) {
	var out ReminderResult
	return out, c.Do(ctx, http.MethodPost, "/v1/reminders", req, &out)
}

// CancelReminder removes a reminder.
func (c *Client) CancelReminder(ctx context.Context, name string, sync bool) (ReminderResult, error) {
	var out ReminderResult
	return out, c.Do(ctx, http.MethodDelete, withFlag("/v1/reminders/"+url.PathEscape(name), "sync", sync), nil, &out)
}

// withFlag adds the query ?name=true to path when on.
func withFlag(path, name string, on bool) string {
	if !on {
		return path
	}
	return path + "?" + name + "=true"
}

// Alerts lists the newest alerts, oldest first.
func (c *Client) Alerts(ctx context.Context, limit int) ([]wakewheel.Alert, error) {
	var out []wakewheel.Alert
	return out, c.Do(ctx, http.MethodGet, fmt.Sprintf("/v1/alerts?limit=%d", limit), nil, &out)
}

// LastFires lists the newest n finished runs, oldest first.
func (c *Client) LastFires(ctx context.Context, n int) ([]wakewheel.Fire, error) {
	var out []wakewheel.Fire
	return out, c.Do(ctx, http.MethodGet, fmt.Sprintf("/v1/fires?last=%d", n), nil, &out)
}

// Fires lists finished runs after seq.
func (c *Client) Fires(ctx context.Context, after uint64, limit int) ([]wakewheel.Fire, error) {
	var out []wakewheel.Fire
	return out, c.Do(ctx, http.MethodGet, fmt.Sprintf("/v1/fires?after=%d&limit=%d", after, limit), nil, &out)
}
