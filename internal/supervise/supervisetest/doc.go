// Package supervisetest holds the test fixture of a command that leaves a
// process behind: a grandchild sleeping forever, and the check that a
// supervised run's group kill took it. The tests of every package that
// runs an operator's command through internal/supervise (wake hooks,
// alarms) use it. It is imported by tests only.
//
// Imports: internal/supervise (Alive) and the standard library.
package supervisetest
