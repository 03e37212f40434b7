package api

import (
	"context"
	"net"
	"os"

	"github.com/rs/zerolog"
	"golang.org/x/sys/unix"
)

// peerCheck closes, before any request is read, every connection whose
// peer is not running as this process's uid (LOCAL_PEERCRED).
func peerCheck(log zerolog.Logger) func(ctx context.Context, c net.Conn) context.Context {
	return func(ctx context.Context, c net.Conn) context.Context {
		uc, ok := c.(*net.UnixConn)
		if !ok {
			return ctx
		}
		raw, err := uc.SyscallConn()
		if err != nil {
			c.Close()
			return ctx
		}
		var cred *unix.Xucred
		var credErr error
		if err := raw.Control(func(fd uintptr) {
			cred, credErr = unix.GetsockoptXucred(int(fd), unix.SOL_LOCAL, unix.LOCAL_PEERCRED)
		}); err != nil || credErr != nil || cred == nil || int(cred.Uid) != os.Getuid() {
			log.Warn().Msg("refused a connection from another user")
			c.Close()
		}
		return ctx
	}
}

func umask(m int) int { return unix.Umask(m) }
