package api_test

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"
	"github.com/syndtr/goleveldb/leveldb/storage"
	"github.com/wakewheel/wakewheel/api"
	"github.com/wakewheel/wakewheel/internal/clock"
	"github.com/wakewheel/wakewheel/internal/enginetest"
	ob "github.com/wakewheel/wakewheel/obligations"
	"github.com/wakewheel/wakewheel/scheduler"
	"github.com/wakewheel/wakewheel/store"
)

// FuzzPostStream writes arbitrary bytes to a post stream of a real server
// (a real obligations service on a memory store) and checks every answer:
// a whole frame, 200 with a PostResult or 4xx with a JSON error, never an
// internal error or a panic, and the stream then ends cleanly.
func FuzzPostStream(f *testing.F) {
	frame := func(body string) string {
		return string(binary.BigEndian.AppendUint32(nil, uint32(len(body)))) + body
	}
	post := `{"lane":"dev","class":"human","body":"hello"}`
	f.Add([]byte(frame(post)))
	f.Add([]byte(frame(post) + frame(`{"lane":"dev","class":"human","id":"x","body":"again"}`) + frame(post)))
	f.Add([]byte(frame(`{"lane":"nope","class":"human","body":"x"}`) + frame(`[]`) + frame(post)))
	f.Add([]byte(frame(`{"lane":"dev","class":"alert","body":"x","locator":{"repo":"r","sha":"abc"},"key":"k"}`)))
	f.Add([]byte("\x00\x00\x00\x00"))
	f.Add([]byte("\xff\xff\xff\xff" + post))
	f.Add([]byte("\x00\x00\x01\x00" + post)) // longer than what follows
	f.Add([]byte(frame(post)[:7]))
	f.Add([]byte("GET / HTTP/1.1\r\n\r\n"))

	db, err := store.OpenStorage(storage.NewMemStorage(), store.Options{})
	if err != nil {
		f.Fatal(err)
	}
	svc, eng := enginetest.Wakes(f, db, ob.DefaultPolicies(), time.Now())
	runner := scheduler.Start(eng, clock.Real{})
	svc.Attach(runner)
	log := &lockedBuffer{}
	srv := api.NewServer(runner, db, api.Info{Version: "fuzz"}, zerolog.New(log))
	api.RegisterObligations(srv, svc)
	sock := fuzzSocket(f)
	go srv.Serve(sock)
	f.Cleanup(func() { srv.Shutdown(context.Background()); svc.Close(); runner.Stop(); db.Close() })
	if err := waitForSocket(sock); err != nil {
		f.Fatal(err)
	}
	if _, err := api.NewClient(sock).OpenLane(context.Background(), "dev"); err != nil {
		f.Fatal(err)
	}

	f.Fuzz(func(t *testing.T, in []byte) {
		c, br := openStream(t, sock)
		go func() { c.Write(in); c.(*net.UnixConn).CloseWrite() }()
		for {
			var hdr [6]byte
			if _, err := io.ReadFull(br, hdr[:]); err != nil {
				if !errors.Is(err, io.EOF) {
					t.Fatalf("%q: the stream did not end cleanly: %v", in, err)
				}
				break
			}
			body := make([]byte, binary.BigEndian.Uint32(hdr[:]))
			if _, err := io.ReadFull(br, body); err != nil {
				t.Fatalf("%q: an answer cut short: %v", in, err)
			}
			switch status := int(binary.BigEndian.Uint16(hdr[4:])); {
			case status == http.StatusOK:
				var res api.PostResult
				if err := json.Unmarshal(body, &res); err != nil || res.Obligation.Seq == 0 {
					t.Fatalf("%q: answered 200 %q", in, body)
				}
			case status >= 400 && status < 500:
				var e api.Error
				if err := json.Unmarshal(body, &e); err != nil || e.Err.Code == "" || e.Err.Message == "" {
					t.Fatalf("%q: answered %d %q, not a JSON error", in, status, body)
				}
			default:
				t.Fatalf("%q: answered %d %q", in, status, body)
			}
		}
		if strings.Contains(log.String(), "panicked") {
			t.Fatalf("%q: a handler panicked:\n%s", in, log.String())
		}
	})
}

// fuzzSocket is a socket path in a directory of its own, short enough for
// a unix socket.
func fuzzSocket(f *testing.F) string {
	dir, err := os.MkdirTemp("", "ww")
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { os.RemoveAll(dir) })
	return filepath.Join(dir, "s.sock")
}

// waitForSocket returns once sock accepts (the listener's bind has no event
// to wait on), or after 10 s.
func waitForSocket(sock string) error {
	for start := time.Now(); ; {
		c, err := net.Dial("unix", sock)
		if err == nil {
			return c.Close()
		}
		if time.Since(start) > 10*time.Second {
			return err
		}
		time.Sleep(time.Millisecond)
	}
}
