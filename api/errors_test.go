package api_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/wakewheel/wakewheel/api"
)

// The table read from both ends: every code has one HTTP status and one exit
// status, and the exit status follows the class of the status (but for a
// daemon stopping or still loading: try again).
func TestErrorTableIsConsistent(t *testing.T) {
	status := map[string]int{}
	for _, c := range api.Codes() {
		if prev, ok := status[c.Code]; ok && prev != c.Status {
			t.Errorf("code %s answers both %d and %d", c.Code, prev, c.Status)
		}
		status[c.Code] = c.Status
		want := api.ExitFailure
		switch {
		case c.Code == "stopping" || c.Code == "loading":
			want = api.ExitStopping // call again once it is back
		case c.Status/100 == 4:
			want = api.ExitRejected
		}
		if c.Exit != want {
			t.Errorf("code %s (HTTP %d): exit %d, want %d", c.Code, c.Status, c.Exit, want)
		}
	}
	for _, code := range []string{"lease_held", "not_held", "unknown_lane", "bad_request", "not_found", "stopping", "loading", "timeout", "internal"} {
		if _, ok := status[code]; !ok {
			t.Errorf("the table has no code %s", code)
		}
	}
}

// A lease someone holds and a lease nobody holds are rejections (exit 2)
// the client sees with their codes, through a real socket.
func TestLeaseErrorsExitRejected(t *testing.T) {
	srv, _, _ := rootsServer(t, nil)
	sock := filepath.Join(t.TempDir(), "s.sock")
	if len(sock) > 100 {
		dir, err := os.MkdirTemp("", "ww")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.RemoveAll(dir) })
		sock = filepath.Join(dir, "s.sock")
	}
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	hs := &http.Server{Handler: srv.Config.Handler}
	go hs.Serve(ln)
	t.Cleanup(func() { hs.Close() })

	c := api.NewClient(sock)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := c.AcquireLease(ctx, "job", time.Minute); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		call func() error
		code string
	}{
		{"acquire held", func() error { _, err := c.AcquireLease(ctx, "job", time.Minute); return err }, "lease_held"},
		{"renew not held", func() error { _, err := c.RenewLease(ctx, "other", time.Minute); return err }, "not_held"},
		{"arm unknown root", func() error { _, err := c.Arm(ctx, "/no/such/root"); return err }, "not_found"},
	} {
		err := tc.call()
		var ae *api.Error
		if !errors.As(err, &ae) || ae.Err.Code != tc.code || api.ExitCode(err) != api.ExitRejected {
			t.Errorf("%s: %v (exit %d), want code %s and exit %d", tc.name, err, api.ExitCode(err), tc.code, api.ExitRejected)
		}
	}
	if got := api.ExitCode(errors.New("no daemon")); got != api.ExitFailure {
		t.Errorf("a plain error exits %d, want %d", got, api.ExitFailure)
	}
}
