package api

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"

	"github.com/rs/zerolog"
	"github.com/wakewheel/wakewheel/internal/filetrust"
	"golang.org/x/sys/unix"
)

// ErrUntrustedDaemon means the socket is served by another user's process:
// the client refused it before sending anything.
var ErrUntrustedDaemon = errors.New("api: the socket is not served by you")

// peerCheck closes, before any request is read, every connection whose
// peer is not running as this process's uid, or whose uid cannot be read
// (peerUID is the platform's SO_PEERCRED or LOCAL_PEERCRED).
func peerCheck(log zerolog.Logger) func(ctx context.Context, c net.Conn) context.Context {
	return func(ctx context.Context, c net.Conn) context.Context {
		uc, ok := c.(*net.UnixConn)
		if !ok {
			return ctx
		}
		if uid, err := connPeerUID(uc); err != nil || uid != os.Getuid() {
			log.Warn().Msg("refused a connection from another user")
			c.Close()
		}
		return ctx
	}
}

// checkServer is the client's half, as ssh and tmux clients do it: the
// process that listens on socket must run as this process's uid. It runs
// on a fresh connection before a byte is written, so a socket another user
// put in place never sees a request.
func checkServer(c net.Conn, socket string) error {
	uc, ok := c.(*net.UnixConn)
	if !ok {
		return fmt.Errorf("%w: %s is not a unix socket connection", ErrUntrustedDaemon, socket)
	}
	uid, err := connPeerUID(uc)
	if err != nil {
		return fmt.Errorf("%w: cannot read the credentials of the process serving %s (%v); nothing was sent", ErrUntrustedDaemon, socket, err)
	}
	if uid != os.Getuid() {
		return fmt.Errorf("%w: %s is served by %s, not by you (%s); nothing was sent. Another user may have put their own socket in its place: make %s yours with mode 0700 (`chmod 700 %s`), remove the socket and restart your daemon",
			ErrUntrustedDaemon, socket, filetrust.DescribeUID(uid), filetrust.DescribeUID(os.Getuid()), filepath.Dir(socket), filepath.Dir(socket))
	}
	return nil
}

// connPeerUID reads the uid of the process at the other end of uc.
func connPeerUID(uc *net.UnixConn) (int, error) {
	raw, err := uc.SyscallConn()
	if err != nil {
		return -1, err
	}
	uid, uidErr := -1, error(nil)
	if err := raw.Control(func(fd uintptr) { uid, uidErr = peerUID(int(fd)) }); err != nil {
		return -1, err
	}
	return uid, uidErr
}

// umask sets the process's file mode mask and returns the old one: the
// server listens under 0o177, so its socket is never open to others, not
// even for the moment before its chmod.
func umask(m int) int { return unix.Umask(m) }
