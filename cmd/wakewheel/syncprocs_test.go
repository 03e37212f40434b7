package main

import (
	"os"
	"runtime"
	"testing"
)

// The daemon syncs its journal raw and adds the fsync's processor unless
// the operator set GOMAXPROCS, which then stays as it is.
func TestRawSyncProcessor(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	t.Setenv("GOMAXPROCS", "2")
	if rawJournalSync() {
		t.Error("an operator's GOMAXPROCS is set, yet the journal would sync raw")
	}
	os.Unsetenv("GOMAXPROCS") // t.Setenv restores it
	if !rawJournalSync() {
		t.Fatal("GOMAXPROCS unset, yet the journal would not sync raw")
	}
	n := runtime.GOMAXPROCS(0)
	addSyncProcessor(false)
	if got := runtime.GOMAXPROCS(0); got != n {
		t.Errorf("GOMAXPROCS %d after addSyncProcessor(false), want %d", got, n)
	}
	addSyncProcessor(true)
	if got := runtime.GOMAXPROCS(0); got != n+1 {
		t.Errorf("GOMAXPROCS %d after addSyncProcessor(true), want %d", got, n+1)
	}
}
