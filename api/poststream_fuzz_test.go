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
			checkFuzzAnswer(t, in, int(binary.BigEndian.Uint16(hdr[4:])), body)
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

// FuzzPipelinedPostStream is FuzzPostStream for the pipelined stream
// (wakewheel-post/2): arbitrary bytes, posts served concurrently, every
// answer a whole frame with a 200 PostResult or a 4xx JSON error, at most
// one answer per id sent, and the stream then ends cleanly.
func FuzzPipelinedPostStream(f *testing.F) {
	frame := func(id uint32, body string) string {
		return string(binary.BigEndian.AppendUint32(binary.BigEndian.AppendUint32(nil, uint32(len(body))), id)) + body
	}
	post := `{"lane":"dev","class":"human","body":"hello"}`
	f.Add([]byte(frame(1, post)))
	f.Add([]byte(frame(1, post) + frame(2, `{"lane":"dev","class":"human","id":"x","body":"again"}`) + frame(3, post)))
	f.Add([]byte(frame(5, `{"lane":"nope","class":"human","body":"x"}`) + frame(4, `[]`) + frame(3, post)))
	f.Add([]byte(frame(9, post) + "\x00\x00\x00\x00\x00\x00\x00\x07"))
	f.Add([]byte("\xff\xff\xff\xff\x00\x00\x00\x01" + post))
	f.Add([]byte("\x00\x00\x01\x00\x00\x00\x00\x01" + post)) // longer than what follows
	f.Add([]byte(frame(1, post)[:11]))
	f.Add([]byte("GET / HTTP/1.1\r\n\r\n"))

	ft := newFuzzTarget(f)
	sock := fakeSocket(f)
	serveUp(f, ft.srv, sock)
	f.Cleanup(func() { ft.srv.Shutdown(context.Background()) })
	if _, err := api.NewClient(sock).OpenLane(context.Background(), "dev"); err != nil {
		f.Fatal(err)
	}

	f.Fuzz(func(t *testing.T, in []byte) {
		sent := map[uint32]int{} // the ids of the whole headers in, as the daemon would read them
		for rest := in; len(rest) >= 8; {
			n := binary.BigEndian.Uint32(rest)
			sent[binary.BigEndian.Uint32(rest[4:])]++
			if n == 0 || n > api.MaxRequestBytes || uint64(len(rest)-8) < uint64(n) {
				break
			}
			rest = rest[8+n:]
		}
		c, br := openPipe(t, sock)
		go func() { c.Write(in); c.(*net.UnixConn).CloseWrite() }()
		for {
			var hdr [10]byte
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
			id := binary.BigEndian.Uint32(hdr[6:])
			if sent[id]--; sent[id] < 0 {
				t.Fatalf("%q: an answer for id %d, more than were sent", in, id)
			}
			checkFuzzAnswer(t, in, int(binary.BigEndian.Uint16(hdr[4:])), body)
		}
		if strings.Contains(ft.log.String(), "panicked") {
			t.Fatalf("%q: a handler panicked:\n%s", in, ft.log.String())
		}
	})
}

// checkFuzzAnswer fails t unless an answer to the fuzzed stream in is a
// stored post (200 with its sequence number) or a JSON error of the
// client's (4xx with a code and a message).
func checkFuzzAnswer(t *testing.T, in []byte, status int, body []byte) {
	t.Helper()
	switch {
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
