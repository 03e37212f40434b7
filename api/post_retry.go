package api

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"time"
)

// Exactly-once posts from the caller's side. The client, not the daemon,
// gives a post its idempotency id (NewPostID) before the first byte is
// sent, so a post whose answer was lost (a connection reset, a daemon
// restarting) can be sent again with the same id: the daemon stores it at
// most once, and the retry gets the stored obligation back.

// PostRetryDelays are the waits before each retry of a post whose
// connection failed: about 1.5 s in all, enough for a daemon restarted by
// its service manager to listen again, short enough that a daemon that is
// really down is reported promptly.
var PostRetryDelays = []time.Duration{100 * time.Millisecond, 200 * time.Millisecond, 400 * time.Millisecond, 800 * time.Millisecond}

// NewPostID returns a fresh idempotency id: "c-" and 128 random bits in hex.
func NewPostID() string {
	var b [16]byte
	rand.Read(b[:]) // never fails (crypto/rand panics rather than return short)
	return "c-" + hex.EncodeToString(b[:])
}

// retryable reports whether a failed post may be sent again: the
// connection failed or the daemon is stopping, so the post may or may not
// have been stored. An answer of the daemon (bad input, an unknown lane),
// an untrusted socket or the caller's own deadline are final.
func retryable(ctx context.Context, err error) bool {
	if err == nil || ctx.Err() != nil || errors.Is(err, ErrUntrustedDaemon) {
		return false
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Err.Code == "stopping"
	}
	return true
}

// withRetry runs send, and again after each of PostRetryDelays while it
// fails retryably. It returns the last error and how many times it sent.
func withRetry(ctx context.Context, send func() error) (int, error) {
	err := send()
	n := 1
	for _, d := range PostRetryDelays {
		if !retryable(ctx, err) {
			break
		}
		t := time.NewTimer(d)
		select {
		case <-ctx.Done():
			t.Stop()
			return n, err
		case <-t.C:
		}
		err = send()
		n++
	}
	return n, err
}
