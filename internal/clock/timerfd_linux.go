package clock

import (
	"fmt"
	"os"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// grain is the step the armed instants of a timerfd are rounded up to.
// The loop re-arms its sleeper on every turn with a duration counted
// from a fresh now, so the instant it asks for moves by the nanoseconds
// between two clock reads while the deadline it sleeps to stays put;
// rounded up to the grain those requests are one instant and cost no
// system call. A sleeper wakes at most this much after its instant, never
// before it.
const grain = 10 * time.Microsecond

// timerfd is a one-shot Linux timerfd registered with the network poller,
// armed at instants counted from base and rounded up to the grain. Its one
// user is a pollSleeper, on the sleeper's owner goroutine.
type timerfd struct {
	fd   int
	f    *os.File        // fd, registered with the poller
	rc   syscall.RawConn // f's, for reads through the poller without the runtime's syscall entry
	base time.Time       // instants are counted from here, on the monotonic clock
	at   time.Duration   // armed instant since base; 0: not armed (fired or stopped)
	sets int             // settime calls, for the test that an unchanged instant makes none
}

func newTimerfd() (timerfd, error) {
	fd, err := unix.TimerfdCreate(unix.CLOCK_MONOTONIC, unix.TFD_NONBLOCK|unix.TFD_CLOEXEC)
	if err != nil {
		return timerfd{}, fmt.Errorf("timerfd_create: %w", err)
	}
	// A non-blocking descriptor makes a pollable file: a read parks the
	// reader in the network poller, not on a thread.
	t := timerfd{fd: fd, f: os.NewFile(uintptr(fd), "timerfd"), base: time.Now()}
	if t.rc, err = t.f.SyscallConn(); err != nil {
		t.f.Close()
		return timerfd{}, fmt.Errorf("timerfd: %w", err)
	}
	return t, nil
}

// arm arms the kernel's timer d (> 0) from now, rounded up to the grain;
// re-arming to the instant already armed makes no system call.
func (t *timerfd) arm(d time.Duration) {
	now := time.Since(t.base)
	at := (now + d + grain - 1) / grain * grain
	if at == t.at {
		return
	}
	// Relative to the kernel's now, which is no earlier than ours: the
	// timer fires at at or after it.
	t.settime(at - now)
	t.at = at
}

// disarm stops the kernel's timer if it is armed.
func (t *timerfd) disarm() {
	if t.at != 0 {
		t.settime(0)
		t.at = 0
	}
}

// settime arms the kernel's timer d from now (0 disarms), which also
// clears an expiration not yet read. It fails only on a bad descriptor,
// which a sleeper that is not closed does not have.
func (t *timerfd) settime(d time.Duration) {
	t.sets++
	spec := unix.ItimerSpec{Value: unix.NsecToTimespec(int64(d))}
	if _, _, e := unix.RawSyscall6(unix.SYS_TIMERFD_SETTIME, uintptr(t.fd), 0, uintptr(unsafe.Pointer(&spec)), 0, 0, 0); e != 0 {
		panic(fmt.Sprintf("clock: timerfd_settime: %v", e))
	}
}

// readRaw is one raw read of the descriptor into buf; it reports whether
// the read is done (an expiration read, or an error) rather than to be
// waited for in the poller (EAGAIN: not expired).
//
// Every system call of a wake (these reads, the settime of the next arm)
// is made raw, without the runtime's syscall entry: none blocks (the
// descriptor is non-blocking; the wait is the poller's), and an entry into
// a syscall wakes the runtime's monitor thread (sysmon) from its deep
// sleep and resets it to polling every 20 µs for a millisecond or more,
// which cost more than the wake itself (BENCHMARKS.md, "Timer slack:
// push+fire in real time").
func readRaw(fd uintptr, buf *[8]byte) (done bool, errno syscall.Errno) {
	_, _, errno = unix.RawSyscall(unix.SYS_READ, fd, uintptr(unsafe.Pointer(&buf[0])), uintptr(len(buf)))
	return errno != unix.EAGAIN, errno
}
