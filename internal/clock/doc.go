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
// it every reminder the loop slept to. Polled's timers are a Linux timerfd
// read by a goroutine parked in the network poller: its expiry is a
// readable descriptor, which the worker does look at. It also wakes at its
// instant: a runtime timer left to the poller's thread waits in epoll_wait,
// whose timeout is whole milliseconds, and the daemon's median 1 ms reminder
// came 0.43-0.54 ms late on one, 0.09-0.11 ms on the timerfd (BENCHMARKS.md,
// "The loop's timer through the poller"). The loop's timer is
// the only one the daemon makes on it; elsewhere (and where no timerfd can
// be made) Polled makes runtime timers.
//
// Why raw system calls: a wake of the loop's timer makes three (the
// reader's read of the descriptor, its timerfd_gettime, the next Reset's
// timerfd_settime), none of which can block. Made through the runtime's
// syscall entry, each woke the runtime's monitor thread (sysmon) from its
// deep sleep and set it polling every 20 µs for a millisecond or more: a
// third of the CPU of a loop woken every millisecond. Made raw, they leave
// it asleep (BENCHMARKS.md, "Timer slack: push+fire in real time").
//
// Invariants: every Timer keeps the Go 1.23 contract (after Reset or Stop
// no stale value is received); a poller timer fires at its instant rounded
// up to 10 µs, never before it, and re-arming it to an unchanged instant
// makes no system call.
//
// Imports: the standard library and, on Linux, golang.org/x/sys/unix.
package clock
