package clock

import (
	"errors"
	"os"
	"sync/atomic"
	"time"
)

// pollSleeper is a timerfd that its owner reads itself, parked in the
// network poller: when it expires, the thread that waits in the poller
// runs the owner at once. A timer read by a goroutine of its own (the
// loop's timer before the sleeper) hands each expiration to its receiver
// through a channel, and readying a goroutine from a running one wakes a
// second thread to spin for it; on a virtual machine that is a second
// sleep and wake-up of a CPU per wake of the loop (BENCHMARKS.md, "The
// loop's wait, eleventh landing").
//
// Wake cuts a Wait short by setting the descriptor's read deadline in the
// past, which readies the parked owner without a system call; the owner
// clears it when its Wait ends on it.
type pollSleeper struct {
	tfd timerfd // the owner's
	due bool    // Reset with d <= 0: the next Wait returns at once
	buf [8]byte

	woken    atomic.Bool // a Wake the owner has not yet seen
	sleeping atomic.Bool // the owner is in Wait, or about to park there
	closed   atomic.Bool
}

func newPollSleeper() (*pollSleeper, error) {
	tfd, err := newTimerfd()
	if err != nil {
		return nil, err
	}
	return &pollSleeper{tfd: tfd}, nil
}

func (s *pollSleeper) Reset(d time.Duration) {
	s.due = d <= 0
	if s.due {
		s.tfd.disarm()
		return
	}
	s.tfd.arm(d)
}

func (s *pollSleeper) Stop() {
	s.due = false
	s.tfd.disarm()
}

// Wait parks in the poller until the descriptor is readable (the armed
// instant passed) or its read deadline is (a Wake). The sleeping flag and
// the woken token are a pair: the owner sets sleeping and then looks at
// woken, a waker sets woken and then looks at sleeping, so either the
// owner sees the Wake or the waker sees the owner asleep and sets the
// deadline.
func (s *pollSleeper) Wait() {
	if s.due {
		s.due = false
		return
	}
	s.sleeping.Store(true)
	if s.woken.Swap(false) {
		s.sleeping.Store(false)
		return
	}
	err := s.tfd.rc.Read(s.read)
	s.sleeping.Store(false)
	s.woken.Store(false) // seen: this Wait is ending
	if errors.Is(err, os.ErrDeadlineExceeded) {
		s.tfd.f.SetReadDeadline(time.Time{}) // this Wake is spent
	}
}

// read is one raw read of the descriptor (see readRaw for why raw); an
// expiration read means the armed instant has passed, and the
// kernel's one-shot timer is disarmed.
func (s *pollSleeper) read(fd uintptr) bool {
	done, errno := readRaw(fd, &s.buf)
	if done && errno == 0 {
		s.tfd.at = 0
	}
	return done
}

// aLongTimeAgo is a read deadline that has passed.
var aLongTimeAgo = time.Unix(1, 0)

func (s *pollSleeper) Wake() {
	if s.woken.Swap(true) {
		return // the owner has not seen the last one yet
	}
	if s.sleeping.Load() && !s.closed.Load() {
		s.tfd.f.SetReadDeadline(aLongTimeAgo)
	}
}

// close releases the descriptor; the owner no longer waits. A Wake after
// it does nothing.
func (s *pollSleeper) close() {
	if !s.closed.Swap(true) {
		s.tfd.f.Close()
	}
}
