package clock

import (
	"fmt"
	"os"
	"sync"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// grain is the step the armed instants of a poller timer are rounded up
// to. The loop re-arms its timer on every turn with a duration counted
// from a fresh now, so the instant it asks for moves by the nanoseconds
// between two clock reads while the deadline it sleeps to stays put;
// rounded up to the grain those requests are one instant and cost no
// system call. A timer fires at most this much after its instant, never
// before it.
const grain = 10 * time.Microsecond

// timerfd is a one-shot Linux timerfd registered with the network poller,
// armed at instants counted from base and rounded up to the grain. Its
// callers serialise its use (pollTimer under its mutex, pollSleeper on its
// one owner goroutine).
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
// which a timer that is not closed does not have.
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
func readRaw(fd uintptr, buf *[8]byte) (done bool, errno syscall.Errno) {
	_, _, errno = unix.RawSyscall(unix.SYS_READ, fd, uintptr(unsafe.Pointer(&buf[0])), uintptr(len(buf)))
	return errno != unix.EAGAIN, errno
}

// pollTimer is a one-shot timerfd read by a goroutine parked in the
// network poller. The reader forwards an expiration only while the armed
// instant it belongs to is still the one armed, so after Reset or Stop no
// stale value is received (the Go 1.23 contract).
type pollTimer struct {
	c    chan time.Time
	done chan struct{}

	mu     sync.Mutex
	tfd    timerfd // its at and sets under mu
	closed bool
}

func newPollTimer(d time.Duration) (*pollTimer, error) {
	tfd, err := newTimerfd()
	if err != nil {
		return nil, err
	}
	t := &pollTimer{tfd: tfd, c: make(chan time.Time, 1), done: make(chan struct{})}
	go t.read()
	t.Reset(d)
	return t, nil
}

func (t *pollTimer) C() <-chan time.Time { return t.c }

// Reset re-arms the timer to fire d from now; a value not yet received is
// dropped. Re-arming to the instant already armed makes no system call.
func (t *pollTimer) Reset(d time.Duration) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return
	}
	t.drain()
	if d <= 0 {
		t.tfd.disarm()
		t.c <- time.Now()
		return
	}
	t.tfd.arm(d)
}

// Stop disarms the timer and drops a value not yet received; it reports
// whether that stopped a firing (an armed timer or an unreceived value).
func (t *pollTimer) Stop() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	armed := t.tfd.at != 0
	t.tfd.disarm()
	return !t.closed && (t.drain() || armed)
}

// read forwards expirations until the descriptor is closed. An expiration
// is forwarded only if the kernel says the arm now in force has expired:
// one read before a re-arm belongs to the old instant and is dropped, and
// the new arm brings its own.
//
// Every system call of a wake (this read, the gettime below, the settime
// of the next Reset) is made raw, without the runtime's syscall entry:
// they never block (the descriptor is non-blocking; the wait is the
// poller's), and an entry into a syscall wakes the runtime's monitor
// thread (sysmon) from its deep sleep and resets it to polling every
// 20 µs for a millisecond or more, which cost more than the wake itself
// (BENCHMARKS.md, "Timer slack: push+fire in real time").
func (t *pollTimer) read() {
	defer close(t.done)
	var buf [8]byte
	var errno syscall.Errno
	read := func(fd uintptr) (done bool) {
		done, errno = readRaw(fd, &buf)
		return done
	}
	for {
		if err := t.tfd.rc.Read(read); err != nil || errno != 0 {
			return // closed (a timerfd read fails no other way)
		}
		t.mu.Lock()
		if t.tfd.at != 0 && !t.closed {
			var cur unix.ItimerSpec
			if gettime(t.tfd.fd, &cur) == nil && cur.Value.Sec == 0 && cur.Value.Nsec == 0 {
				t.tfd.at = 0
				select {
				case t.c <- time.Now():
				default:
				}
			}
		}
		t.mu.Unlock()
	}
}

// drain drops a value not yet received; t.mu is held.
func (t *pollTimer) drain() bool {
	select {
	case <-t.c:
		return true
	default:
		return false
	}
}

// gettime is timerfd_gettime made raw (see read).
func gettime(fd int, cur *unix.ItimerSpec) error {
	if _, _, e := unix.RawSyscall(unix.SYS_TIMERFD_GETTIME, uintptr(fd), uintptr(unsafe.Pointer(cur)), 0); e != 0 {
		return e
	}
	return nil
}

// close releases the descriptor and waits for the reader to end.
func (t *pollTimer) close() {
	t.mu.Lock()
	was := t.closed
	t.closed = true
	t.tfd.disarm()
	t.mu.Unlock()
	if !was {
		t.tfd.f.Close()
		<-t.done
	}
}
