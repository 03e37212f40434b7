package api_test

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/wakewheel/wakewheel/api"
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

	ft := newFuzzTarget(f)
	sock := fakeSocket(f)
	serveUp(f, ft.srv, sock)
	f.Cleanup(func() { ft.srv.Shutdown(context.Background()) }) // before the service and store close
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
		if strings.Contains(ft.log.String(), "panicked") {
			t.Fatalf("%q: a handler panicked:\n%s", in, ft.log.String())
		}
	})
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
