package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"os/user"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// otherUser is a second account for the trust tests: the hostile
// neighbour. It is created (as a system user without a home) when missing.
type otherUser struct {
	name     string
	uid, gid int
}

const otherUserName = "wwtrust"

var otherUserOnce sync.Mutex

// secondUser returns the test's second user, creating it with useradd; it
// skips the test unless it runs as root on a host with useradd.
func secondUser(t *testing.T) otherUser {
	t.Helper()
	if os.Getuid() != 0 {
		t.Skip("needs root: the test creates a second user (useradd) and runs the hostile side as that user")
	}
	otherUserOnce.Lock()
	defer otherUserOnce.Unlock()
	u, err := user.Lookup(otherUserName)
	if err != nil {
		if _, lerr := exec.LookPath("useradd"); lerr != nil {
			t.Skip("needs useradd to create a second user")
		}
		out, err := exec.Command("useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin", otherUserName).CombinedOutput()
		if u, err = user.Lookup(otherUserName); err != nil {
			t.Fatalf("useradd %s: %v\n%s", otherUserName, err, out)
		}
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	return otherUser{name: otherUserName, uid: uid, gid: gid}
}

// asUser runs name args as u (setpriv) and returns its combined output.
func (u otherUser) run(t *testing.T, name string, args ...string) string {
	t.Helper()
	if _, err := exec.LookPath("setpriv"); err != nil {
		t.Skip("needs setpriv (util-linux) to act as the second user")
	}
	full := append([]string{"--reuid", strconv.Itoa(u.uid), "--regid", strconv.Itoa(u.gid), "--clear-groups", name}, args...)
	out, err := exec.Command("setpriv", full...).CombinedOutput()
	if err != nil {
		t.Fatalf("as %s: %s %v: %v\n%s", u.name, name, args, err, out)
	}
	return string(out)
}

// hostileEnv starts this test binary as the hostile server (see
// runHostileServer) when set to "uid:gid:socket".
const hostileEnv = "WAKEWHEEL_TEST_HOSTILE"

// hostile is a server that another user runs on a socket path, the way an
// attacker who can write to the socket's directory would: it answers every
// request as the daemon would answer a post, and reports what it received.
type hostile struct {
	cmd   *exec.Cmd
	lines chan string
}

// startHostile runs the hostile server as u on socket.
func startHostile(t *testing.T, u otherUser, socket string) *hostile {
	t.Helper()
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%d:%d:%s", hostileEnv, u.uid, u.gid, socket))
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	h := &hostile{cmd: cmd, lines: make(chan string, 100)}
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			h.lines <- sc.Text()
		}
		close(h.lines)
	}()
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	select {
	case l := <-h.lines:
		if l != "ready" {
			t.Fatalf("hostile server: %q", l)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the hostile server did not start")
	}
	return h
}

// connections stops the server and returns, per connection it accepted,
// the number of bytes it received.
func (h *hostile) connections(t *testing.T) []int {
	t.Helper()
	time.Sleep(300 * time.Millisecond) // let the last connection be reported
	h.cmd.Process.Signal(syscall.SIGTERM)
	var got []int
	for l := range h.lines {
		if n, ok := strings.CutPrefix(l, "conn "); ok {
			v, _ := strconv.Atoi(n)
			got = append(got, v)
		}
	}
	h.cmd.Wait()
	return got
}

// runHostileServer is the hostile side, in a child of the test binary
// started as root: it drops to the other user's uid and gid (for every
// thread: Go's setuid applies process-wide), listens on the socket, and for
// each connection prints "conn <bytes received>".
func runHostileServer(spec string) {
	parts := strings.SplitN(spec, ":", 3)
	uid, _ := strconv.Atoi(parts[0])
	gid, _ := strconv.Atoi(parts[1])
	fail := func(err error) { fmt.Println("error:", err); os.Exit(1) }
	if err := errors.Join(syscall.Setgroups(nil), syscall.Setgid(gid), syscall.Setuid(uid)); err != nil {
		fail(err)
	}
	if os.Getuid() != uid {
		fail(fmt.Errorf("still uid %d", os.Getuid()))
	}
	os.Remove(parts[2])
	ln, err := net.Listen("unix", parts[2])
	if err != nil {
		fail(err)
	}
	fmt.Println("ready")
	for {
		c, err := ln.Accept()
		if err != nil {
			fail(err)
		}
		go func() {
			defer c.Close()
			n := 0
			buf := make([]byte, 64<<10)
			for {
				c.SetReadDeadline(time.Now().Add(500 * time.Millisecond))
				k, err := c.Read(buf)
				n += k
				if err != nil {
					break
				}
			}
			if n > 0 { // answer as the real daemon answers a post
				body := `{"obligation":{"lane":"L","seq":1,"id":"x","class":"human","body":"stolen"},"duplicate":false}`
				fmt.Fprintf(c, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s", len(body), body)
			}
			fmt.Printf("conn %d\n", n)
			io.Copy(io.Discard, c)
		}()
	}
}
