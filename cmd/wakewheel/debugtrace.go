package main

import (
	"encoding/json"
	"os"
	"runtime"
	"runtime/pprof"
	"runtime/trace"

	"github.com/rs/zerolog"

	"github.com/wakewheel/wakewheel/store"
	"github.com/wakewheel/wakewheel/wakes"
)

// debugTraceEnv names a file the daemon writes an execution trace to
// (runtime/trace, read with `go tool trace`), from ready until it stops:
// where its goroutines waited for a processor, its collections and their
// assists, which handler held a processor how long. A debugging aid for a
// developer measuring the daemon (BENCHMARKS.md, "The loop under
// callers"), not a setting: it is read from the environment only, and
// nothing of it is served on any socket.
const debugTraceEnv = "WAKEWHEEL_DEBUG_TRACE"

// debugAllocsEnv names a file the daemon writes its allocation profile to
// when it stops (runtime/pprof "allocs", read with `go tool pprof
// -sample_index=alloc_space`): what the requests it served allocated, by
// call stack. The same kind of aid as debugTraceEnv, read from the
// environment only.
const debugAllocsEnv = "WAKEWHEEL_DEBUG_ALLOCS"

// startDebugTrace starts the trace when debugTraceEnv is set and returns
// what stops it, which also writes the allocation profile when
// debugAllocsEnv is set; a trace or profile that cannot be written is
// logged and the daemon runs on without it.
func startDebugTrace(log zerolog.Logger) (stop func()) {
	stopTrace := startTrace(log)
	return func() {
		stopTrace()
		writeAllocs(log)
	}
}

func writeAllocs(log zerolog.Logger) {
	path := os.Getenv(debugAllocsEnv)
	if path == "" {
		return
	}
	runtime.GC() // the profile is as of the last collection
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err == nil {
		err = pprof.Lookup("allocs").WriteTo(f, 0)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		log.Warn().Err(err).Str("file", path).Msg("allocation profile not written")
	}
}

func startTrace(log zerolog.Logger) (stop func()) {
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

// debugCommitsEnv names a file the daemon writes, when its obligations
// service closes, the grouped commit's counters (wakes.CommitStats) and
// the store's (store.Stats) as JSON: the commit groups' sizes, the fsyncs,
// where a commit cycle's time went. The same kind of aid as debugTraceEnv
// (read by the posters' benchmark), read from the environment only.
const debugCommitsEnv = "WAKEWHEEL_DEBUG_COMMITS"

func writeCommitStats(log zerolog.Logger, c wakes.CommitStats, s store.Stats) {
	path := os.Getenv(debugCommitsEnv)
	if path == "" {
		return
	}
	b, err := json.Marshal(struct {
		Commits wakes.CommitStats
		Store   store.Stats
	}{c, s})
	if err == nil {
		err = os.WriteFile(path, b, 0o600)
	}
	if err != nil {
		log.Warn().Err(err).Str("file", path).Msg("commit counters not written")
	}
}
