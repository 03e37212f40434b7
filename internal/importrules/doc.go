// Package importrules checks, from a package's own tests, the dependency
// rules its doc.go states: which imports it must not gain, whether it may
// leave the standard library, and whether it must stay pure (no goroutines,
// no clock reads, no I/O). One checker for every package, so a rule reads
// the same everywhere and a new package states its rules in three lines.
//
// It imports only the standard library.
package importrules
