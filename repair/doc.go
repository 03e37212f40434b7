// Package repair recovers a damaged store and says exactly what it kept and
// what it lost.
//
// Run copies the damaged store aside byte for byte, salvages every record
// whose table block or journal batch passes its checksum (store.SalvageDir),
// and rebuilds the store from them (store.Rebuild). The obligation lanes are
// made consistent on the way: a lane's head is the highest sequence number
// any surviving obligation, cursor, checkpoint or ledger entry knows; every
// lost sequence number in 1..head is filled with a gap marker, an alert
// obligation with the coalescing key GapKey, so the lane is contiguous, the
// daemon starts, and the lane's consumer sees the loss in its digest instead
// of a wedged lane; a cursor the ledger proves was further is raised. The
// rebuilt store's alert log starts with one alert per lane that lost
// obligations and one for the repair.
//
// Invariants: every obligation the salvage read is in the rebuilt store at
// its sequence number, or (if it did not decode) counted in the report;
// every other lost sequence number up to the head is a listed range; what
// cannot be named (journal records known only by their sequence numbers,
// acknowledged synced batches missing at the end, records of damaged table
// blocks) is counted or named by kind.
//
// Imports: store, obligations, wakes (its namespaces) and the root package.
// Nothing imports repair but cmd.
package repair
