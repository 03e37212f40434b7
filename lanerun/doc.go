// Package lanerun is the daemon's last metre to agents: it reaches an
// agent through its host's hooks, a headless runner, or its terminal pane,
// never by polling.
//
//   - Sessions (session.go): the host session last seen serving each lane,
//     as the `wakewheel hook` command reports it (host, session id,
//     working directory, state, the wake id its Stop hook last blocked
//     with). Stored in the agent namespace, written without fsync (a lost
//     record costs one resume by id, never an obligation).
//   - The runner (runner.go): lanes.<name>.agent, the operator's command,
//     started on a wake with the digest on stdin and the wake in WAKEWHEEL_*
//     variables; one run per lane at a time; wakes during a run coalesce
//     into one more run only if work is still unconsumed; a run that exits
//     without acking leaves the work unconsumed, and the class cadence
//     re-wakes the lane (so never later than the SLO); a failing command
//     backs off (RetryBase doubling to RetryCap) and is alerted after
//     RetryAttempts failures in a row. Output goes to <Dir>/<lane>.log,
//     rotated past LogCap.
//   - Pane delivery (pane.go): lanes.<name>.tmux, a one-line prompt typed
//     into the pane (literal keys, then Enter) once per wake: a post's wake
//     once, each fallback re-wake once more. A missing pane is shown in
//     Status and alerted once; it is tried again at the next wake only.
//     Nothing ever reads the pane.
//
// A lane may use all three: while a session is busy (in a turn, or its
// Stop hook waiting for a wake) the runner and the pane leave the lane to
// the hook; once the session came to rest, they take over. A daemon that
// restarts takes every stored session as resting: while it was down the
// session's hooks failed open, and no report of rest may ever come. (So a
// runner may reach a session that is in fact still in a turn: a pane
// queues the prompt; a runner that resumes the session by id suits lanes
// whose session is not also used interactively.)
//
// # Invariants
//
//   - A run or a prompt happens only when the lane holds unconsumed work
//     (checked by delivering the digest first): no work, no turn.
//   - Every run and prompt is an agent turn in the ledger (mode runner or
//     pane, found work true), recorded through the obligations service.
//   - At most one run per lane at a time, across daemon crashes too: a run
//     writes its process group to <Dir>/<lane>.run, and Start kills what a
//     killed daemon left and waits for it before any new run.
//   - Nothing an agent sends can set a command: Config comes from the
//     operator's file only.
//
// # Registered numbers
//
//	DefaultActiveGrace 30 m  an "active" report older than this is a crashed session
//	DefaultLogCap      1 MiB a lane's runner log before it rotates
//	tmuxTimeout        5 s   one tmux command
//	staleWait          5 s   waiting for a killed daemon's run to go
//
// # Imports
//
// obligations (types), store (Op), internal/clock, zerolog,
// internal/supervise for every command it starts (never os/exec directly:
// a run's process group dies with it) and syscall. Never viper, configs,
// api or cmd.
package lanerun
