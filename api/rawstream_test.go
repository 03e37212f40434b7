package api

import (
	"bytes"
	"errors"
	"io"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// unixPair is a connected pair of unix sockets, as the client and the
// daemon hold them.
func unixPair(t *testing.T) (client, server net.Conn) {
	t.Helper()
	ln, err := net.Listen("unix", filepath.Join(t.TempDir(), "s"))
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	accepted := make(chan net.Conn, 1)
	go func() {
		c, _ := ln.Accept()
		accepted <- c
	}()
	client, err = net.Dial("unix", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	server = <-accepted
	if server == nil {
		t.Fatal("accept failed")
	}
	t.Cleanup(func() { client.Close(); server.Close() })
	return client, server
}

func TestRawStreamWritesMoreThanTheSocketTakesAndReadsToEOF(t *testing.T) {
	client, server := unixPair(t)
	s := newRawStream(client, rawConn(client))
	big := bytes.Repeat([]byte("wakewheel"), 1<<17) // over a megabyte: the write waits for the reader
	got := make(chan []byte, 1)
	go func() {
		b, _ := io.ReadAll(server)
		got <- b
	}()
	if n, err := s.Write(big); err != nil || n != len(big) {
		t.Fatalf("Write = %d, %v; want %d, nil", n, err, len(big))
	}
	client.(*net.UnixConn).CloseWrite()
	if b := <-got; !bytes.Equal(b, big) {
		t.Fatalf("the reader got %d bytes, want the %d written", len(b), len(big))
	}

	if _, err := server.Write([]byte("answer")); err != nil {
		t.Fatal(err)
	}
	server.Close()
	b, err := io.ReadAll(s)
	if err != nil || string(b) != "answer" {
		t.Fatalf("ReadAll = %q, %v; want \"answer\", nil (io.EOF ends it)", b, err)
	}
}

func TestRawStreamReadKeepsTheDeadline(t *testing.T) {
	client, _ := unixPair(t)
	s := newRawStream(client, rawConn(client))
	client.SetReadDeadline(time.Now().Add(20 * time.Millisecond))
	if _, err := s.Read(make([]byte, 8)); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("Read past the deadline = %v, want os.ErrDeadlineExceeded", err)
	}
}
