// Command scalebench measures a real daemon process at scale, with the
// baselines of every ratio measured in the same run (BENCHMARKS.md, section
// Scale):
//
//   - restart to first answer with N pending reminders, against a raw
//     LevelDB open and iteration of the same store;
//   - the daemon's RSS with N pending;
//   - status latency at N pending against an empty daemon, the calls 5 ms
//     apart (a caller that asks now and then, which the listing gate does
//     not pace), and back to back (a caller in a loop, which it paces);
//   - while 10 callers loop on status and deadlines pages: the lateness of
//     reminders due in 1 ms and the latency of reminder posts, against the
//     same measures on the idle daemon;
//   - 64 concurrent obligation posters through the socket against the same
//     posters calling the obligations service in process.
//
// -only lateness measures the reminders' lateness and the posts alone, for
// the binary and any -against binaries (each on a copy of one store, all
// running, measured in turns), beside each the daemon's own runtime timer
// and a runtime timer in a quiet child process (-only sampler): the
// machine's part, at the same moments. The 10 callers run in a child
// process of their own (-only callers), so that the probes' process times
// its posts with no caller ahead of it in its own runtime.
//
// -only load -against restarts the binary and the -against ones in turns
// on one store, -rounds times, each right after a raw iteration, and
// prints each daemon's medians: a change to the reload measured side by
// side with the binary before it.
//
// -only backlog starts the binary and the -against ones, in turns, each on
// a copy of one store of n reminders that all fell due an hour ago (a
// restart after downtime), and times status every 5 ms until every one has
// run: the restart to ready, the drain, status latency during it against
// the same daemon idle afterwards, the peak RSS, the daemon's CPU.
//
// It is a benchmark, not a test: it prints numbers and judges nothing. Run
// it through `make bench-scale` (it needs the built binary).
//
// It imports the store, api, wakes and scheduler packages (with the
// obligations, deadlines and clock types they take) to prefill a store and
// to run the in-process baseline; nothing imports it.
package main
