// Package clock is the only place in the engine's libraries that reads the
// wall clock. The runner holds a Clock; pure packages take now as a value.
//
// Why an interface: simulation tests replay days in milliseconds with Fake,
// and the runner's sleep-until-Next loop is the same code under both.
//
// Why Polled: the daemon's heap is mostly the wheel (about 81 MB at a
// million pending deadlines), and each collection marks it for 20 to 130 ms,
// mostly on idle-priority mark workers. Such a worker, between units of
// work, looks at the run queues and the network poller but not at expired
// runtime timers (golang/go#45632), so a runtime timer that came due during
// a mark fired 5.3 ms late at the median (0.14 ms outside one), and with
// it every reminder the loop slept to. Polled's sleeper is a Linux timerfd
// its owner waits on, parked in the network poller: its expiry is a
// readable descriptor, which the worker does look at. It also wakes at its
// instant: a runtime timer left to the poller's thread waits in epoll_wait,
// whose timeout is whole milliseconds, and the daemon's median 1 ms reminder
// came 0.43-0.54 ms late on one, 0.09-0.11 ms on the timerfd (BENCHMARKS.md,
// "The loop's timer through the poller"). The loop's sleeper is the only
// timerfd the daemon makes; Polled's timers, and its sleeper where no
// timerfd can be made, are the runtime's.
//
// Why a Sleeper: the loop waits for its next wake or for a request. A
// timer's channel in a select needs a goroutine to read the timerfd and
// send on the channel, and readying the loop from that goroutine wakes a
// second thread to spin for it: on this project's virtual machines a
// sleep and wake-up of a thread costs ~30 µs of CPU, so a wake of the loop
// cost two. Polled's sleeper is read by the loop itself, parked in the
// poller: the thread that the expiry wakes runs the loop, and nothing else
// wakes. A sender wakes it by setting the descriptor's read deadline in the
// past, which readies the loop without a system call (BENCHMARKS.md, "The
// loop's wait, eleventh landing").
//
// Why the wall clock: the sleeper's timerfd is armed at an absolute
// instant of CLOCK_REALTIME, the clock the wheel's instants are on. A
// timer on the monotonic clock (a runtime timer's, and this one's before)
// stops while the host sleeps, so a laptop that slept through a reminder's
// instant fired it only after the rest of that timer had run out awake;
// the kernel fires an absolute wall-clock timer as soon as the wall clock
// has passed its instant, after a resume or a step forward alike
// (timerfd_linux.go).
//
// Why raw system calls: a wake of the sleeper makes two or three (the
// owner's reads of the descriptor, the next Reset's timerfd_settime),
// none of which can block. Made through the runtime's syscall entry, each
// woke the runtime's monitor thread (sysmon) from its deep sleep and set
// it polling every 20 µs for a millisecond or more: a third of the CPU of
// a loop woken every millisecond. Made raw, they leave it asleep
// (BENCHMARKS.md, "Timer slack: push+fire in real time").
//
// Invariants: every Timer keeps the Go 1.23 contract (after Reset or Stop
// no stale value is received); a poller sleeper wakes at its instant
// rounded up to 10 µs, never before it on the wall clock, and as soon as
// the wall clock has passed it however it got there, and re-arming it to an
// unchanged instant makes no system call; a Wake is never lost (a Wait
// under way or the next one returns after it).
//
// Imports: the standard library and, on Linux, golang.org/x/sys/unix.
package clock
