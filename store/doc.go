// Package store is the engine's persistence on LevelDB (goleveldb v1.0.0).
//
// It owns the on-disk layout and its durability: persisted deadlines, the
// fire history, the alert log, the schema version record, and generic
// namespaced records that later packages (roots, backlog, obligations,
// cursors) keep through Get/Put/Delete/Scan/Write. It exposes one concrete
// type, *DB; the packages that use it declare the small interfaces they need.
//
// # Key layout
//
//	v/schema          schema version (ASCII decimal; SchemaVersion = 1)
//	v/sync            sync mark: counts synced batches (integrity.go)
//	d/<key>           deadline: versioned binary encoding (deadline_codec.go)
//	f/<seq:8 BE>      fire history: JSON wakewheel.Fire, Seq order = key order
//	a/<seq:8 BE>      alert log: JSON wakewheel.Alert
//	n/<ns>/<key>      generic records; ns is non-empty and has no '/'
//
// The schema record is written (synced) when a store is created, before
// any other record, so every wakewheel store has one. Open refuses a store
// whose version is newer (ErrSchemaTooNew), and treats a store that holds
// records but no version record as damaged or foreign: an error wrapping
// ErrCorrupt, rather than stamping version 1 on data it cannot vouch for.
// Repair stamps it. Decoders accept every older version they ever wrote.
//
// # Durability classes
//
//   - Write-behind (PutDeadline, DeleteDeadline): deadline extends during
//     bursts. Only the latest change of a key is kept in memory, and the
//     buffer is written as one unsynced batch within FlushInterval (or
//     sooner when it holds 4096 keys). A 30,000-event checkout that extends
//     one key 30,000 times costs one or two LevelDB writes. These calls
//     wait for I/O only when the disk cannot keep up (see below).
//   - Immediate (Complete, AddAlert, unsynced Put/Delete/Write): one
//     unsynced batch per call, written before the call returns.
//   - Synced (PutDeadlineSync, DeleteDeadlineSync, Put/Delete/Write with
//     sync): fsynced before the call returns. Concurrent synced calls share
//     one synced batch (a committer goroutine groups them), so the cost of
//     an fsync is divided among its callers. Obligations, CONSUMED cursors
//     and anything acknowledged to a peer belong here. The fsync is
//     goleveldb's Sync of its journal file; with Options.RawJournalSync
//     (the daemon's) it is the same fsync issued as a raw system call,
//     which keeps the committer's processor and leaves the runtime's
//     monitor thread alone, while the disk is fast: after an fsync of
//     10 ms or more the next go through the scheduler's path until one is
//     fast again (storage_sync.go).
//
// Ordering holds across the classes: a synced write, or Complete, drops the
// key's pending write-behind change, and a flush can never write a stale
// value after them (writebehind.go explains how). A later call always wins.
//
// DeadlinePage reads a page of deadlines from one consistent view: a
// LevelDB snapshot and a copy of the write-behind changes it lacks, taken
// together under the write lock (deadline_page.go). It costs the page and
// the write-behind buffer, never the number of deadlines, and never waits
// for the scheduler; it yields the processor as it reads.
// AppendDeadlinePage writes into a caller's slice, reused page after page;
// VisitDeadlinePage hands each deadline's stored bytes to a writer as it is
// read and copies nothing (no key, no payload). The store keeps no block
// cache: every open table holds its own index block, which a page would
// otherwise read again each time (integrity.go, strictOptions).
//
// # What a crash can lose
//
// Process crash (kill -9, panic, OOM): at most the write-behind changes of
// the last FlushInterval (100 ms) that were not flushed yet; the scheduler
// derives them again (a burst is re-detected, a lease renewed). Nothing
// written immediately or synced is lost: goleveldb writes every batch to
// its journal file before returning, and the OS page cache outlives the
// process. Abandon simulates this crash.
//
// Power loss or kernel crash: everything not fsynced may be lost — the
// write-behind buffer, and the unsynced batches that were still in the
// page cache (deadline extends, fire history, alerts, unsynced generic
// records), in journal order: a lost write implies all later unsynced
// writes are lost too. Synced writes are never lost: obligations and
// cursors, written synced, lose nothing. goleveldb drops a torn or damaged
// journal tail on open instead of failing.
//
// # Corruption
//
// A store is opened strictly (integrity.go): every checksum of the
// MANIFEST, the journal and the tables must hold, Open reads every record
// once (but the deadlines, with Options.LoadChecksDeadlines: the caller's
// LoadDeadlines right after reads those, as strictly, with goleveldb's
// block buffer pool until EndLoad reopens without it: load_buffers.go), and the sync witness (WitnessFile, the mark of the last durable
// synced batch, written after its fsync) must not name a batch the store
// does not hold — so a journal cut exactly at a record boundary is caught
// too. Any of these, a panic of goleveldb on malformed data, or a record
// that does not decode gives an error wrapping ErrCorrupt that names the
// store and the command `wakewheel repair --store <dir>`. Only a torn tail
// of the newest journal that holds nothing acknowledged is dropped on open,
// and OpenNotes says so.
//
// Repair does not trust goleveldb's recovery (it stops at the first bad key
// of a damaged table). SalvageDir reads the table and journal files
// directly, block by block and batch by batch, keeps the newest intact
// version of every record, and accounts for what it skipped; CopyAside
// keeps the damaged store; Rebuild writes a fresh store from the salvage.
// The repair package adds the obligations' lane logic on top.
//
// # A full disk
//
// A write that fails for a reason other than corruption (ENOSPC, EIO) puts
// the store in a fault (heal.go): that call and every write after it fail
// at once with an error wrapping ErrUnwritable that says since when and
// why, and nothing of a failed call is written. Reads go on, and alerts
// raised meanwhile are held in memory (Alerts lists them). Health reports
// the fault (the daemon's /healthz answers 503). Every HealInterval the
// store proves the disk has room (a probe file of the journals' size plus
// 1 MiB, fsynced) and then reopens LevelDB on the same storage: goleveldb's
// journal writer keeps its first error for good, so only a reopen clears
// it. Once open again, the held alerts are written after
// store_write_failed, then store_healed says how long it lasted and how
// many writes were refused. Writers (under wmu) and readers (counted)
// never see the swap: the healer waits for no read in flight, then takes
// wmu.
//
// # Registered numbers
//
//	FlushInterval  100 ms  bounds what a process crash can lose of deadline
//	                       extends (100 ms of them), while a 30,000-event
//	                       burst still costs a handful of writes instead of
//	                       30,000; well under the 500 ms burst silence.
//	AlertCap       1000    a human reads alerts; 1000 covers days of
//	                       failures without letting a failing loop grow the
//	                       store without bound.
//	FireCap        10000   the fire history is for status and debugging;
//	                       10,000 fires (~2 MB of JSON) spans days of a
//	                       busy host.
//	write-behind   4096    pending keys flush at once, and 8192 make the
//	                       caller flush itself (backpressure when the disk
//	                       falls behind): a batch stays far below goleveldb's
//	                       4 MiB write buffer and memory stays bounded.
//	sync group     1024    requests per synced batch at most.
//	HealInterval   1 s     a store that cannot write tries to reopen this
//	                       often (engine.heal_interval): writes resume
//	                       about a second after the disk has room.
//	held alerts    256     alerts kept in memory while the store cannot
//	                       write; more are counted, not kept.
//
// # Imports
//
// store may import the root package (domain records) and deadlines (the
// Deadline type) and goleveldb. It must not import scheduler, cmd, configs
// or viper: the scheduler declares the interfaces store satisfies, and
// options arrive as a plain Options struct.
package store
