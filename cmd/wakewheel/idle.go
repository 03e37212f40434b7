//go:debug updatemaxprocs=0

package main

// Idle means idle: with nothing due the daemon's threads all block, and
// what still wakes it is a timer of its own or of a library it links. The
// go:debug line above turns off the runtime's periodic check of the
// cgroup CPU limit (Go 1.25+: sysmon re-reads cpu.max and the CPU
// affinity at most once a second whenever it is awake): the daemon takes
// GOMAXPROCS from the limit at start and does not follow a limit changed
// under it; a restart does. The broker (nats-server, whose server/pse
// init samples its process every second) is a program of its own for the
// same reason. BENCHMARKS.md, "Idle wake-ups", has the measured sources.
