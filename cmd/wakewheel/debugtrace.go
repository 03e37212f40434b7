package main

import (
	"os"
	"runtime/trace"

	"github.com/rs/zerolog"
)

// debugTraceEnv names a file the daemon writes an execution trace to
// (runtime/trace, read with `go tool trace`), from ready until it stops:
// where its goroutines waited for a processor, its collections and their
// assists, which handler held a processor how long. A debugging aid for a
// developer measuring the daemon (BENCHMARKS.md, "The loop under
// callers"), not a setting: it is read from the environment only, and
// nothing of it is served on any socket.
const debugTraceEnv = "WAKEWHEEL_DEBUG_TRACE"

// startDebugTrace starts the trace when debugTraceEnv is set and returns
// what stops it; a trace that cannot start is logged and the daemon runs
// on without it.
func startDebugTrace(log zerolog.Logger) (stop func()) {
	path := os.Getenv(debugTraceEnv)
	if path == "" {
		return func() {}
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err == nil {
		if err = trace.Start(f); err != nil {
			f.Close()
		}
	}
	if err != nil {
		log.Warn().Err(err).Str("file", path).Msg("execution trace not started")
		return func() {}
	}
	log.Info().Str("file", path).Msg("writing an execution trace")
	return func() {
		trace.Stop()
		if err := f.Close(); err != nil {
			log.Warn().Err(err).Str("file", path).Msg("closing the execution trace")
		}
	}
}
