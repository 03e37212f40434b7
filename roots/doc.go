// Package roots is the daemon side of the Gardener behaviours: the
// registry of watched roots, their durable backlogs, the detections, the
// supervised ingest and reconcile runs, the leases and the traffic tick.
// It turns what package detectors notices into deadlines on the engine,
// and runs the actions those deadlines fire.
//
// # Deadlines (kind, key) and what their firing does
//
//	burst     burst/<root>      extended by every fs event (burst silence,
//	                            capped): a detection
//	detect    detect/<root>     pushed by traffic, arm, resume and watcher
//	                            fallbacks: a detection
//	drain     drain/<root>      hand the next batch to the ingest handler
//	reconcile reconcile/<root>  extended by every drain that ingested
//	                            (reconcile quiet, capped): the reconcile
//	lease     lease/<name>      the lease expires
//
// <root> is the root's absolute path, so keys read "burst/src/repo".
// A root's own Windows (windows.go) override the manager's Options for it
// alone; Timetable declares how burst/ and reconcile/ keys are timed under
// a configuration (each root's own windows over the defaults), so that a
// config reload re-times exactly the roots whose window got shorter.
//
// # A detection (detect.go)
//
// Starts or re-arms the watcher first (so nothing changes unseen between
// the scan and the watch); while .git/index.lock exists it yields (burst
// silence at a time) until the lock goes, or takes it as stale once no
// file changed under it for detect.index_lock_wait (10 s) or it was held
// detect.index_lock_max (2 m) in all: one checkout is one detection even
// past the burst cap, and a slow one (100,000 files on a busy machine,
// writing files the whole time) is not detected again and again halfway.
// The root's detectors.Tracker computes the changed set, given the
// since ref (and for a plain directory the dirty directories the watcher
// saw, or a full scan when events may be missing: first detection,
// polling, overflow): for a git root the set since that ref, less the
// paths exactly as they were when the previous set was captured, plus
// those that changed back (see package detectors). The set comes back
// once; the tracker remembers it only after the capture below. The set is appended to the backlog and
// the since ref advanced in one synced store write: the ref never moves
// past changes that are not durably queued. A set larger than the root's
// next batch (a checkout) is written in two: its first batch alone,
// handed to ingest at once, then the rest with the since ref, so the
// first batch runs while the rest is written (a crash in between detects
// the whole set again; the first batch may reach ingest twice, never
// zero times). A non-empty backlog pushes drain/<root>.
//
// Computed ahead (ahead.go): a watched git root whose burst is large
// (aheadMinEvents) has its changed set computed during the silence, once
// the tree has been quiet for aheadQuiet and .git/index.lock is gone, on
// a goroutine of its own; the detection at the burst's end takes it when
// no event came since it started (the root's event count is its mark),
// and computes afresh otherwise. An event cancels it. A 100,000-file
// checkout's git status then runs while the silence does.
//
// Never detected (ownfiles.go): the daemon's own files (Options.OwnFiles:
// log, store, socket) join the skip policy of the root that holds them;
// a file the root's own command writes at every run is muted after three
// detections in a row and named in the status (SelfWritten).
//
// # The registry (registry.go, retry.go)
//
// A root is a directory that no other root holds or is held by (nested
// and overlapping roots are refused, naming the root in the way). Its
// commands are checked when given: a program that does not exist or is
// not executable is refused (the CLI first makes a relative program
// absolute against the caller's directory). A root an agent registered
// (through MCP) is marked so; an agent may unwatch only such a root and
// never sets commands; the operator's watch adopts it. After an ingest's
// retries are spent the backlog stays, and drains again on the next
// event, a change of commands, a config reload or Retry.
//
// # The backlog (backlog.go)
//
// A persisted, de-duplicated FIFO per root: store records
// "rootq/<id>/<seq>" holding the raw bytes of up to 1,024 consecutive
// entries' paths, NUL-separated (a 100,000-path checkout is ~100 records
// in its synced write; a batch that ends inside a record rewrites the
// rest of it, so a crash hands again no more than before). A path already waiting is not
// added twice; a path in the batch being ingested is added again (it
// changed after the batch was cut). A batch leaves the backlog only after
// its handler succeeded (unsynced delete: a power loss can only hand it to
// ingest again), so delivery is at least once and nothing is lost.
//
// # Supervised runs (runs.go, run.go, drain.go, reconcile.go)
//
// The engine has one worker; a user's command may run for minutes. So a
// handler never runs a command: it starts it on a goroutine of the root
// (one run at a time per root, a timeout; the command itself runs under
// package internal/supervise: its process group killed when the run ends,
// at the timeout or at shutdown, Pdeathsig on Linux so no orphan outlives
// a killed daemon) and returns the outcome yield with a watchdog delay. The
// run's end is an event: its result is kept on the root and the key is
// pushed due now; that firing consumes the result and returns the real
// outcome, so the engine's machinery applies: retry with bounded backoff
// then retries_exhausted for a failing ingest (engine.retry_attempts
// counts firings, and a failing run takes two: start and result), one
// immediate retry for a conflict. A successful batch's firing starts the
// next batch at once and returns done: one firing per batch. Wakes, lease
// expiries and other roots never wait behind a slow command.
//
// Ingest command: /bin/sh -c CMD in the root, stdin the batch's
// root-relative paths each followed by a NUL byte (xargs -0 reads it),
// exactly the bytes on disk. Environment: the daemon's, without GIT_DIR
// and the like, plus
//
//	WAKEWHEEL_ACTION=ingest  WAKEWHEEL_ROOT  WAKEWHEEL_BATCH_SIZE
//	WAKEWHEEL_BACKLOG (paths left after this batch)  WAKEWHEEL_SINCE_REF
//
// Exit 0: ingested. Anything else (or the timeout): the batch stays at the
// front of the backlog and the drain is retried. A root with no ingest
// handler keeps its backlog (bounded by the tree's distinct paths) until
// one is configured; a disarmed root keeps it too.
//
// Reconcile command: /bin/sh -c CMD in the root, no stdin, with
//
//	WAKEWHEEL_ACTION=reconcile  WAKEWHEEL_ROOT  WAKEWHEEL_SINCE_REF
//	WAKEWHEEL_STORE_VERSION (per root, strictly increasing, synced before
//	                         every run, the conflict retry included)
//
// Exit protocol: 0 done; 75 (EX_TEMPFAIL) an optimistic-concurrency
// conflict — the command found its store changed under the version it
// was given — retried once at once with a fresh version, and if the retry
// conflicts too, the alert auto_reconcile_conflict (never a loop); any
// other exit, or the timeout, the alert reconcile_failed. At a reconcile's
// firing: a live lease covering the root yields until the lease's expiry
// (a release pulls it to now); a root marked candidate is skipped.
//
// Embedding programs set Go functions instead (Handlers, SetHandlers):
// the same contract, ErrConflict standing for exit 75.
//
// # Who may configure commands
//
// Commands are command lines the operator gives to `wakewheel watch
// --ingest/--reconcile` (or, once configs has the key, the config file).
// The MCP adapter, the agents' transport, has no field for them and never
// forwards one, so an agent working through MCP cannot make the daemon
// run anything. The socket itself is not that boundary: it accepts only
// the daemon's own uid, and any process of that uid can send a command
// line in POST /v1/roots — as it could edit the config file or run the
// command itself. Same-uid is the security boundary; the MCP surface is
// the agents' one.
//
// # Watchers, modes, traffic (root.go, traffic.go)
//
// A root's honest mode: notify (a live watcher), polling (why: overflow,
// watch limit, watch budget, unwatchable filesystem, dead watcher, root
// removed), evicted (its watches taken by the budget for a more recently
// used root), disarmed, or resuming (armed, watcher not started since the
// daemon started: resume is lazy). A fallback pushes a detection at once,
// counts an overflow and raises the alert root_polling. Overflow and a
// dead watcher re-arm at the next detection; an evicted root is polled on
// traffic and re-armed when a detection finds it changed or a request
// names it (arm, watch), so two roots too big for the budget do not
// thrash; limits and filesystems stay polled until arm or restart.
// Traffic: every API request whose verb is not in QuietVerbs pushes
// detect/<root> for the polled and evicted roots, at most once per
// PollInterval each; the request never waits for it nor fails with it.
//
// # Restart
//
// Records and backlogs load before the socket accepts; Resume pushes
// detect/<root> (which starts the watcher) and, for a non-empty backlog,
// drain/<root> ResumeDelay after the start; a reconcile left pending runs
// within the quiet window. A run interrupted by a crash leaves its batch
// in the backlog; nothing in flight is persisted, so nothing wedges. A
// plain directory's stat cache lives in memory: its first detection after
// a start is a full inventory (every file handed to ingest again). The
// git "previous set" memory (the tracker's) is persisted with each
// capture (n/rootmem/<path>): dirty and untracked files captured before a
// restart are not handed again after it, and one changed or reverted
// while the daemon was down is. A root whose directory goes away is
// looked for (recover.go): re-armed when it comes back; a rename is said
// plainly (alert root_renamed) and its commands stop.
//
// # Store layout and upgrade safety
//
//	n/roots/<path>          Record, JSON with a version (record.go)
//	n/rootq/<id>/<seq>      backlog entries from seq on: their paths, NUL-separated
//	n/rootmem/<path>        the git tracker's memory of its last capture
//
// Decoders accept every older record (testdata/fixture-v1, loaded by
// TestFixtureV1StillLoadsAndStaysArmed): a record without an ID gets one.
//
// # Registered numbers
//
// The detect.* keys of configs (burst 500ms/5s, reconcile 45s/10m, drain
// budget 32 for a root's first batch, drain target 1s and max batch 4096
// for the later ones (batchsize.go), index lock wait 10s and max 2m, watch budget
// 8192) and:
//
//	ResumeDelay   200 ms  the socket answers before the first inventory
//	pumpCoalesce  10 ms   the watcher pump's rest after a round that
//	              extended a burst: 10,000 file writes cost ~170-410
//	              engine round trips instead of ~14,000 (one per event
//	              and more); a burst's silence starts ≤ 10 ms late
//	aheadQuiet    30 ms  a large burst is computed ahead once quiet this
//	              long: a checkout writes HEAD just after its index
//	aheadMinEvents 1000  the burst size computed ahead: a small edit's
//	              status is cheap after the silence, and a stream of
//	              small bursts never pays for a cancelled status
//	PollInterval  = burst cap (5 s)  the fastest traffic polls one root:
//	              a polled root is as fresh as a watched one under churn
//	maxDirty      4096   dirty directories tracked between detections of
//	              a plain directory; past it one full scan is cheaper
//	leases        1s..24h TTL, names of 1..256 bytes
//
// Imports: detectors (every look at the disk: watchers, trackers),
// scheduler, store (its Op type), deadlines, internal/clock,
// internal/supervise (every command a root runs), internal/gitenv,
// zerolog. Never viper, cobra, goleveldb, fsnotify, os/exec, configs,
// api, mcpserver, obligations or wakes (imports_test.go). The API
// (package api) and the binary import it. The simulation script
// testdata/sim (script_test.go) replays drain, reconcile, lease yield and
// conflict retry under the fake clock.
package roots
