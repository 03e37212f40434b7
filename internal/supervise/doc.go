// Package supervise runs an operator's command under supervision: the one
// way wakewheel starts a child it does not control (a root's ingest and
// reconcile commands, a lane's wake hook, the monitor's alarm command, a
// headless agent run, the embedded broker node).
//
// # What a run guarantees
//
//   - The child runs in a process group of its own. When the run ends —
//     timeout, cancellation, or the command's own exit — whatever is left
//     of that group is killed with SIGKILL: a grandchild sleeping forever
//     does not outlive its run. A command that means to leave something
//     running must detach it from the group itself (setsid), as a unit
//     under systemd's KillMode=control-group must.
//   - On Linux the child also gets Pdeathsig SIGKILL: a daemon killed with
//     SIGKILL does not leave its command running beside the next daemon.
//   - A run takes at most Timeout, plus WaitDelay for a child that holds
//     the output pipes open after the group was killed (a descendant that
//     changed its group): Run always returns.
//   - Stdout and stderr go to one capped writer that keeps the last
//     OutputCap bytes (Tail); memory never grows with a chatty command.
//   - The result is the exit code (-1 when the command did not exit by
//     itself: killed, timed out, never started), the output's tail, and an
//     error that reads well in a log line or an alert: what happened, then
//     the tail.
//
// A command line runs as Shell -c LINE (default /bin/sh); Argv runs a
// program directly, without a shell.
//
// # A long-lived child
//
// Start runs a Command with no end of its own (the broker node of a fleet
// of one) under the same group, Pdeathsig and output rules: Done says
// when it ended by itself, Err and Output how; Stop sends SIGTERM to its
// group, waits a grace, then kills the group.
//
// # Invariants
//
// Run never panics on a bad Command; it reports it in Result.Err. Run
// does not read the wall clock except through the Clock it is given (the
// timeout itself is the context's, real time: a child is killed in the
// real world).
//
// Imports: the standard library and internal/clock. Never zerolog (the
// caller logs the Result), never the engine's packages.
package supervise
