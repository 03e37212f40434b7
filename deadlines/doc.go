// Package deadlines is the engine's timing wheel and the deadline rules.
//
// It is pure: no goroutines, no clock reads, no I/O, no logging. Time enters
// as a value (the now argument of Extend and Advance); the runner in
// scheduler/ is the only place that turns it into real time.
//
// The rules, written once:
//
//   - Push(key, at): fire no later than at. Creates the deadline, or pulls a
//     pending one earlier; never moves it later.
//   - Extend(key, now, window, cap): a sliding window with a cap:
//     At = min(now+window, Since+cap), where Since is kept from the first
//     extend of the window. Debounce with a max-wait.
//   - Reset(d): set unconditionally (reload, reschedule, re-timing).
//   - Cancel(key): remove; reports whether it was pending.
//
// Every owner of keys hands the engine these four as one vocabulary, the
// Mutation (mutation.go): Validate checks it, Wheel.Apply applies it and
// says what changed. The rules that callers check before they build one
// live here too (rules.go): CheckKey (1..MaxKeyLen bytes of UTF-8, no
// control characters), CheckName (a caller's name as one key segment: a
// lease, a reminder, a root's path; not "." or ".."), CheckWindow (a
// positive window, a cap at least the window) and CapOf (that rule applied
// to merged settings). And the re-timing rule (retime.go): when an owner's
// Timetable says a window or cap got shorter, Retime pulls a pending
// deadline in to now+window or Since+cap, never later.
//
// A deadline fires at its own instant. Advance(now) returns every deadline
// whose At is <= now, in (At, Key) order, and removes them;
// AdvanceAtMost(now, max) returns the earliest max of them and leaves the
// others pending, in the backlog (backlog.go), so that a caller with a
// million due at once (after downtime, or a host's sleep) takes them as
// it can run them, in the same order, and they cost it nothing meanwhile
// but their entries. Next() is never
// later than the earliest pending At, and is that At exactly once the
// deadline is within 64 base ticks (level 0) or overdue. So a deadline
// never fires early, and a caller that advances to Next() fires it at its
// At, however far out it was set: the base tick sizes the wheel's slots,
// it does not round when anything fires.
//
// Timer slack (slack.go): Wake(slack) is the instant a caller that pays a
// wake per distinct instant sleeps to instead. It is Next, unless the
// deadline due next shares its base tick (its level-0 slot, or the overdue
// list of the current tick) with another: then min(Next+slack, the end of
// that tick), so the deadlines of one tick fire together, none early and
// none more than slack after its At (with a slack of a tick, all of that
// tick at its end). A deadline alone in its tick still fires at its own
// instant, and a slack of 0 is Next. The check is O(1), the list's head
// and its successor.
//
// # Structure
//
// Instants are stored as int64 nanoseconds since the Unix epoch, so times
// outside the years 1678 to 2262 are clamped (ticks.go); a zero Since stays
// zero. Tick numbers are counted from the epoch; a divider made with the
// wheel turns an instant into its tick number with a multiplication instead
// of a hardware division (divide.go).
//
// The wheel (levels.go) has 11 levels of 64 slots; a slot of level l spans
// 64^l ticks, so the levels cover every 64-bit tick number and no deadline
// is ever out of range. A deadline's due tick is its At rounded up to a
// tick (the first tick boundary at or after it). The wheel keeps a current
// tick, the due tick of the latest now it was advanced to: every earlier
// tick has been advanced through, and the current one up to that now. A
// pending deadline whose due tick is later sits at the level of the highest
// base-64 digit in which the two differ, in the slot named by that digit;
// one whose due tick is not later sits on an overdue list (overdue.go):
// pushed into the past, or due in the current tick after the last now; or
// in the backlog (backlog.go), ordered: reloaded after downtime, or left
// by an AdvanceAtMost that fired fewer than were due. Each slot is an intrusive doubly linked list; a 64-bit
// word per level marks its non-empty slots, and a word marks the non-empty
// levels.
//
// Next is the earliest overdue At when the list is not empty (it is sorted
// in place when needed); else, for a first non-empty slot in level 0, the
// smallest At in it (Earliest's memory of each slot's smallest entry,
// slotMin, so it costs a walk of that slot only when that entry changed);
// else the first instant due at the start of the first non-empty slot of
// the lowest non-empty level, which an At there can precede by up to a
// tick. Advance fires the overdue entries due by now, then repeatedly takes
// that first slot while it starts by now's due tick, moves the current tick
// to its start, fires the entries due by now and re-inserts the others,
// which land in finer levels (a cascade: At is kept exactly, so no
// precision is lost) or, when due in now's own tick, on the overdue list.
// The entries due are put in (At, Key) order as slab indices (a few
// compared in place, more as pairs of At and index, so that a backlog's
// sort reads each entry once; from 16,384 pairs on by a radix sort of At
// over the bits in which the batch's instants differ, then each run of
// one instant by key), and only then copied out as Deadlines and freed; they leave the index 64 at a time, each run's index lines loaded
// in one pass first, so that a large wheel's misses there overlap instead
// of coming one by one. With more due than an AdvanceAtMost fires, the
// ones left go, in that order, to the backlog: a list like a slot's,
// whose first is the earliest, added to only at its end (a deadline
// pushed into the past before its last waits on the overdue list, and
// each call merges the two), so each later call costs O(max). A load puts
// what the store held past due there, ordered, before it hands the wheel
// over.
// It finds each slot with TrailingZeros64, so empty ticks cost nothing: a
// week-long jump costs O(levels) per non-empty slot. An entry cascades at
// most once per level.
//
// Push, Extend, Reset and Cancel are O(1): a hash lookup (the key hashed
// once, by the wheel's own seeded hash, keyhash.go), then unlinking and
// linking one list node. When a new At maps to the entry's current slot, no
// list is touched; within the slot re-armed last (its span of instants,
// kept until the current tick moves) finding that costs one comparison and
// no call. A key of 8 to 16 bytes is read once, as its first and last 8
// bytes, which make its hash and compare it with an entry's inline key.
//
// Storage: entries are 64-byte structs, one cache line each, in a slab of
// fixed 64 KiB pages (slab.go), addressed by int32 indices, reused through
// a free list. An entry holds At, Since, its list links, its hash, its kind
// interned to a 16-bit id (kinds.go), its bucket, and its key: a key of up
// to 31 bytes (every key the engine makes but a burst or reconcile of a
// deep root) is copied into the entry, a longer one is kept in the slab's
// side table of long keys. So an entry holds no pointer: the pages are
// noscan, a collection neither scans them nor marks a string per pending
// deadline, and a lookup compares the caller's key with bytes in the line
// it already read for the hash. Payloads, which few deadlines carry, live
// in a side map. Keys map to entries through a Swiss-style open-addressing
// table (index.go) of groups of 16 slots, kept in two arrays: the groups'
// control bytes (16 bytes a group, four groups to a cache line) and their
// slots (a cache line a group, each slot a slab index in 24 bits, so a
// wheel holds at most MaxPending, 2^24-1, 16.7M deadlines, and Apply
// refuses a new key beyond with ErrFull; above it 8 more bits of the
// key's hash). A lookup of an absent key, what a push of a new deadline
// asks, reads only its control bytes, a fifth of the table (at 1M pending
// 2 MiB of 10, which the caches and the TLB keep where they do not keep the
// rest); a key found reads its slot's line and its entry too. An insert's
// slot write is held back, up to 16 done at once, and dropped when its key
// is cancelled first, so a push of a new key and its cancel touch the
// control bytes only. The table takes 6 to 11 bytes a deadline as the
// wheel grows (it does not shrink on its own: see Compact below). In
// front of it, once the index outgrows the caches, hints (hints.go):
// four-way sets of the slab indices of the keys found lately, a way for
// every two slots of the index (at most 1 MiB), so re-arming a working
// set of keys does not touch a multi-megabyte index. A hint is checked
// against its entry, so a stale one only costs the probe it failed to
// save. Before
// the hints, a lookup tries the entry found last and the one made just
// after it: keys made in turn and re-armed in that order (a sweep over
// roots or lanes) are then found each in the slab line next to the last,
// without the index. Push, which mostly creates, skips the hints and the
// next entry and goes to the index directly. Altogether a pending deadline
// with a key of up to 31 bytes takes about 73 bytes, its key included (at
// 100k pending; 76 at 1M), and of the caller's key the wheel keeps only a
// long one's string (a Loader clones it). Extend allocates nothing; a push
// of a new key allocates only when a page or the table grows (or, for a
// long key, the side table). What hands a deadline out (Advance's fired
// deadlines, Earliest, All) copies its key into a string of its own,
// carved out of a shared 4 KiB chunk (one allocation for about 150 keys; a
// key kept for long keeps its chunk alive); Get hands back the caller's
// own key. The slab, the index and the hints keep the size of the most the
// wheel has held; Compact (compact.go) builds a wheel anew, as a load
// does, once it holds at most 4,096 in a slab made for 65,536 or more, so
// that its memory follows what it holds after a large drain. It walks the
// lists, not the index, and costs about half a millisecond at its bound.
//
// Invariants (checked by the tests' checkInvariants):
//   - every pending entry is in exactly one list, the one its due tick maps
//     to from the current tick (the overdue list when its due tick is not
//     after the current tick); an entry in a level's slot agrees with the
//     current tick in every digit above the level and is larger in that
//     level's digit, so each level's slots start after the current tick,
//     and every slot of a level starts before every slot above it;
//   - the backlog holds entries whose due tick is not after the current
//     tick, in (At, Key) order, its last one remembered;
//   - a slot's occupancy bit is set iff its list is non-empty;
//   - the index, the slab and the lists hold the same entries.
//
// A Wheel is not safe for concurrent use: one goroutine owns it.
//
// Imports: the standard library only. Must not import: os, net, os/exec,
// time.Now users, zerolog, viper, goleveldb (imports_test.go).
package deadlines
