package api

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"syscall"
	"time"

	"github.com/wakewheel/wakewheel"
)

// ErrDaemonDown means nothing answers on the socket.
var ErrDaemonDown = errors.New("api: the daemon is not running")

// ClientConns is how many idle connections a Client keeps to its daemon:
// as many as the concurrent callers it expects. With net/http's default of
// 2, 64 goroutines posting through one Client closed and redialled a
// connection for most requests, and lost 70% of the in-process rate.
const ClientConns = 64

// Client talks to a daemon over its unix socket. It is safe for concurrent
// use; share one between goroutines.
type Client struct {
	socket string
	http   *http.Client
}

// NewClient returns a client for the daemon listening on socket. Every
// connection is checked before the first byte is sent: a socket served by
// another uid is refused with ErrUntrustedDaemon.
func NewClient(socket string) *Client {
	tr := &http.Transport{
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			var d net.Dialer
			c, err := d.DialContext(ctx, "unix", socket)
			if err != nil {
				return nil, err
			}
			if err := checkServer(c, socket); err != nil {
				c.Close()
				return nil, err
			}
			return c, nil
		},
		MaxIdleConns:        ClientConns,
		MaxIdleConnsPerHost: ClientConns,
	}
	return &Client{socket: socket, http: &http.Client{Transport: tr, Timeout: RequestTimeout + 5*time.Second}}
}

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
	return throughLoading(ctx, func() error { return c.do(ctx, method, path, b, out) })
}

func (c *Client) do(ctx context.Context, method, path string, body []byte, out any) error {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, "http://wakewheel"+path, rd)
	if err != nil {
		return err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.http.Do(req)
	if err != nil {
		if errors.Is(err, ErrUntrustedDaemon) {
			var ue *url.Error
			if errors.As(err, &ue) {
				return ue.Err
			}
			return err
		}
		if errors.Is(err, syscall.ENOENT) || errors.Is(err, syscall.ECONNREFUSED) {
			return fmt.Errorf("%w (no daemon answers on %s; start one with `wakewheel daemon`)", ErrDaemonDown, c.socket)
		}
		return fmt.Errorf("api: %s %s: %w", method, path, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err != nil {
		return fmt.Errorf("api: read answer: %w", err)
	}
	if resp.StatusCode >= 300 {
		var e Error
		if json.Unmarshal(data, &e) == nil && e.Err.Message != "" {
			e.status = resp.StatusCode
			return &e
		}
		return fmt.Errorf("api: %s %s: HTTP %d: %s", method, path, resp.StatusCode, bytes.TrimSpace(data))
	}
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(data, out); err != nil {
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
	path := "/v1/reminders/" + url.PathEscape(name)
	if sync {
		path += "?sync=true"
	}
	return out, c.Do(ctx, http.MethodDelete, path, nil, &out)
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
