package main

import (
	"os"
	"runtime"
)

// The store's journal syncs with a raw fsync that keeps the
// committing goroutine's processor for the whole call (store.Options.
// RawJournalSync; the store's storage_sync.go says why). So that the
// processor held in the fsync takes no CPU from the rest of the daemon —
// the posts of the next batch, the answers of the last — the daemon runs
// with one processor more than the runtime's default (its CPUs, or its
// cgroup's limit). An operator's GOMAXPROCS is kept as it is, and then the
// journal syncs as goleveldb has it.
//
// The processor is added once the API server is built: its listing gate
// leaves one processor of the CPUs' to the loop and the posts
// (api/listing.go), and the fsync's processor is not a core for listings.

// rawJournalSync reports whether the store should sync its journal raw.
func rawJournalSync() bool {
	_, set := os.LookupEnv("GOMAXPROCS")
	return !set
}

// addSyncProcessor adds the fsync's processor when the store syncs raw.
func addSyncProcessor(raw bool) {
	if raw {
		runtime.GOMAXPROCS(runtime.GOMAXPROCS(0) + 1)
	}
}
