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
// armed at absolute instants of the wall clock (CLOCK_REALTIME with
// TFD_TIMER_ABSTIME), rounded up to the grain. Its one user is a
// pollSleeper, on the sleeper's owner goroutine.
//
// Why the wall clock, absolute: the wheel's instants are the wall clock's
// (a reminder "at 09:00"), and so is the now the loop advances it to. A
// timer counted on the monotonic clock does not count a host's sleep: one
// armed for an hour before a laptop suspends for eight fires an hour after
// it wakes, and every deadline that fell due meanwhile waits that hour
// more. A relative timer on CLOCK_BOOTTIME counts the sleep but not a step
// of the wall clock (NTP setting a clock that was hours behind). The
// kernel fires an absolute CLOCK_REALTIME timer once the wall clock
// reads its instant, whichever way it got there: time passing, a resume
// (the sleep is added to the wall clock), or a step forward; a step back
// makes it wait for the instant again, as the deadlines do.
type timerfd struct {
	fd   int
	f    *os.File        // fd, registered with the poller
	rc   syscall.RawConn // f's, for reads through the poller without the runtime's syscall entry
	at   int64           // armed instant, wall-clock ns since the epoch; 0: not armed (fired or stopped)
	sets int             // settime calls, for the test that an unchanged instant makes none
}

func newTimerfd() (timerfd, error) {
	fd, err := unix.TimerfdCreate(unix.CLOCK_REALTIME, unix.TFD_NONBLOCK|unix.TFD_CLOEXEC)
	if err != nil {
		return timerfd{}, fmt.Errorf("timerfd_create: %w", err)
	}
	// A non-blocking descriptor makes a pollable file: a read parks the
	// reader in the network poller, not on a thread.
	t := timerfd{fd: fd, f: os.NewFile(uintptr(fd), "timerfd")}
	if t.rc, err = t.f.SyscallConn(); err != nil {
		t.f.Close()
		return timerfd{}, fmt.Errorf("timerfd: %w", err)
	}
	return t, nil
}

// arm arms the kernel's timer for d (> 0) from now on the wall clock,
// rounded up to the grain; re-arming to the instant already armed makes
// no system call.
func (t *timerfd) arm(d time.Duration) {
	now := time.Now().UnixNano()
	at := (now + int64(d) + int64(grain) - 1) / int64(grain) * int64(grain)
	if at == t.at {
		return
	}
	// Absolute: the kernel fires it once its wall clock reads at, which
	// is no earlier than the now read here plus d.
	t.settime(unix.TFD_TIMER_ABSTIME, at)
	t.at = at
}

// disarm stops the kernel's timer if it is armed.
func (t *timerfd) disarm() {
	if t.at != 0 {
		t.settime(0, 0)
		t.at = 0
	}
}

// settime sets the kernel's timer to ns (with TFD_TIMER_ABSTIME in flags,
// an instant since the epoch; a value of 0 disarms), which also clears an
// expiration not yet read. It fails only on a bad descriptor, which a
// sleeper that is not closed does not have.
func (t *timerfd) settime(flags int, ns int64) {
	t.sets++
	spec := unix.ItimerSpec{Value: unix.NsecToTimespec(ns)}
	if _, _, e := unix.RawSyscall6(unix.SYS_TIMERFD_SETTIME, uintptr(t.fd), uintptr(flags), uintptr(unsafe.Pointer(&spec)), 0, 0, 0); e != 0 {
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
