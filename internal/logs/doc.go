// Package logs makes the logger of wakewheel's two programs (the wakewheel
// binary and wakewheel-broker, which a daemon or `wakewheel broker` runs as
// a child), so that both write the same lines: the level by name (info
// when the name is unknown), console or JSON, every line timestamped to the millisecond.
//
// Only the programs' main packages call it: libraries are handed a
// zerolog.Logger and never make one.
//
// Imports: zerolog and the standard library.
package logs
