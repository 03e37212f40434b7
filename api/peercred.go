package api

import (
	"context"
	"net"
	"os"

	"github.com/rs/zerolog"
)

// peerCheck closes, before any request is read, every connection whose
// peer is not running as this process's uid, or whose uid cannot be read
// (peerUID is the platform's SO_PEERCRED or LOCAL_PEERCRED).
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
		var uid int
		var uidErr error
		if err := raw.Control(func(fd uintptr) { uid, uidErr = peerUID(int(fd)) }); err != nil || uidErr != nil || uid != os.Getuid() {
			log.Warn().Msg("refused a connection from another user")
			c.Close()
		}
		return ctx
	}
}
