// Package wheelcmp benchmarks the deadlines wheel beside Go's runtime timers
// and RussellLuo/timingwheel (a hierarchical timing wheel driven by its own
// goroutine and a DelayQueue), in one run, with the same number of timers
// already pending for all three. It is a module of its own so that the
// third-party wheel is never a dependency of the product; `make
// bench-wheels` runs it, and skips it with a message where the module proxy
// does not serve that wheel.
//
// The operations, each at N = 1k, 100k and 1M pending:
//
//   - push+cancel, warm: a key from a working set of 4,096 is pushed and
//     cancelled; time.AfterFunc + Stop; RussellLuo's AfterFunc + Stop.
//     A key named again (cancelled, re-armed) comes in an equal string of
//     its own, as a caller builds it anew, so the wheel compares its bytes.
//   - push+cancel, cold: the same over 65,536 keys, so that at 1M pending
//     every push misses the caches on the key index. The runtime and
//     RussellLuo have no keys; their column is the same operation.
//   - re-arm across 4,096 and 65,536 distinct pending keys, in turn: the
//     wheel's Extend (a sliding window moved a little each time); a
//     runtime Timer.Reset of the key's timer; RussellLuo, which has no
//     reset, Stop and a new AfterFunc.
//   - push+fire, warm and cold: batches of 1,024 timers due 1 to 16 ms
//     out, pushed, then fired; the wheel's keys from the working set of
//     4,096 or of 65,536. The wheel is advanced to Next by hand (simulated
//     time); the runtime and RussellLuo fire in real time, and their
//     callbacks are waited for. The measure is CPU time per timer (user+system of the
//     whole process, from getrusage: the runtime's timer goroutines and
//     RussellLuo's ticking goroutine count), reported as cpu-ns/op; ns/op
//     of the real-time columns is mostly waiting.
//   - push+fire with the wheel in real time, warm and cold: the same
//     batches, but the wheel is driven as the scheduler's runner drives it:
//     each push at the clock's now plus its delay, then a wait on a
//     runtime timer until the wheel's Wake and an Advance to the clock's
//     now, until the batch has fired. Wake is the runner's timer slack
//     with the daemon's default (engine.timer_slack, a tick): the
//     deadlines that share a tick share one wake, at most a tick late, as
//     the daemon's loop fires them. Its CPU time counts the wheel's sleeps and
//     wake-ups, as the runtime's and RussellLuo's columns count theirs;
//     the simulated rows above leave them out.
//   - push+fire with the wheel on the daemon's loop clock, warm and cold
//     (PushFireLoop*, loopclock_test.go): the same batches, driven on
//     internal/clock.Polled, the clock the daemon gives its loop (a
//     timerfd on Linux, instants rounded up to 10 µs), in the runner's own
//     turn: an Advance to the clock's now, then the clock's sleeper reset
//     to Wake (the same slack) counted from a fresh now, and the loop
//     parked on it in the network poller, as the runner waits.
//     wakes/batch is the loop's wakes per 1,024 deadlines.
//     Why this row, beside the one above (which is kept, with its
//     verdicts): the row above waits on a runtime timer, and a runtime
//     timer that the poller's thread sleeps for waits in epoll_wait, in
//     whole milliseconds. So that row wakes at the runtime column's own
//     precision (it and the runtime fire a deadline about half a
//     millisecond late at the median, BenchmarkPushFireLateness), not at
//     the daemon's: its verdict compares the wheel's work, at equal
//     precision, and says nothing of what the daemon pays. This row is
//     the daemon's timing (the Engine's own work on a wake, records and
//     jobs, is in neither): a deadline alone in its tick at a tenth of
//     that lateness, the deadlines sharing a tick at its end.
//   - BenchmarkPushFireLateness (not in the table): the lateness each
//     column of the real-time rows gets for its CPU, the same batches at
//     1,000 pending, as late-p50-µs and late-p99-µs (fired less due): the
//     runtime's AfterFunc (its callbacks read the clock, a closure a
//     timer, so its CPU here is not the table's), the wheel on a runtime
//     timer, the wheel on the loop clock, each with the default slack and
//     (-slack0) with none, every deadline at its own instant; the wheel's
//     rows report wakes/batch too.
//
// The runtime column is the runtime's timers as the benchmark hands them
// over: the timer itself (Timer.Reset of ts[j]) or a new one, where the
// wheel is handed a key it must find. For push+cancel and re-arm a fourth
// column, runtime+map (runtimemap in the benchmark names), does the job
// the wheel does with the runtime's timers: a map[string]*time.Timer
// holding the N pending keys (and the re-armed ones), the timer stored by
// key, found by an equal string of its own, reset or stopped and deleted.
// It takes no lock (its timers never fire while it is measured), so it is
// the least a keyed user of the runtime pays. Both ratios are reported;
// the targets are judged against the runtime column.
//
// Beside them, BenchmarkRandomRead prices one dependent random read in a
// table of 256 KiB to 64 MiB on the machine at hand: what the wheel pays
// for each cache line a lookup needs from its index or hints at a given N.
// The opcount command (opcount/) runs one operation under callgrind to
// count its instructions, a measure the load of a shared machine does not
// move.
//
// Every sub-benchmark of the comparison reports cpu-ns/op, so the three
// columns compare on the same unit; a benchmark's own setup and teardown (making and stopping the
// timers it re-arms) are not counted. At each N the three run in turn, so
// a baseline runs beside its subject. The table command (table/) turns the
// output of several runs into the table of BENCHMARKS.md: medians, and the
// median of the ratios of runs taken side by side.
package wheelcmp
