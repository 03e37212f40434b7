// Package liveness is the dead-man beacon and its monitor: how a daemon
// proves it is alive to another host, and how that host notices silence.
//
//   - Beacon (beacon.go) sends the daemon's liveness off-host in the
//     healthchecks.io style: a start ping, a success every period, a fail
//     when an alert was recorded since the last ping. The period is not a
//     ticker: each success re-arms the deadline beacon/<host> in the
//     daemon's wheel, so a wedged runner stops the beacon, which is what
//     the monitor must notice. Pings go out from one goroutine of their
//     own, so a slow sink never holds the runner's worker.
//   - Monitor (monitor.go) is the other end (`wakewheel monitor`): each
//     beacon of a host extends absent/<host> by period + grace in the
//     monitor's own engine; when it fires, the host has been silent that
//     long. ServeMonitor (monitor_serve.go) runs that engine and the HTTP
//     endpoints /ping/<host>[/start|/fail] and /status.
//   - Authentication (auth.go): every ping over HTTP is signed with its
//     host's key (HMAC-SHA256 over host, signal, time and body); the monitor
//     refuses, before it records anything, a host it has no key for, a bad
//     signature, a time beyond MaxSkew and a replay. An open monitor
//     (AllowUnauthenticated) is an explicit choice, bounded by MaxHosts.
//   - Limits (limiter.go): fail alarms are coalesced per host (one an
//     AlarmInterval), and all alarms together held to AlarmRate a minute;
//     the excess is counted in the next alarm or a summary (the deadline
//     alarm-summary).
//   - Alarms (alarm.go, sinks.go): one alarm per absence, a fail beacon at
//     once, and a "recovered" alarm when an absent host beacons again; each
//     is logged, then queued for each other sink (the operator's alarm
//     command, the webhook, the feed's sink), each with a bounded queue and
//     a goroutine of its own, tried once with a timeout: a slow sink never
//     delays the next alarm nor the other sinks; an alarm beyond a full
//     queue is dropped, counted (/status sinks) and logged.
//   - Sight (blind.go): a feed that can lose its view (the fleet's broker)
//     confirms its sight (Seeing) and says when it is blind (Blind,
//     Sighted). A feed host's absence alarms only once sight is confirmed
//     after its due time; while blind, absences are held, and on Sighted
//     every pending one moves on by the blind time. Hosts last seen over
//     HTTP are never held.
//
// # Invariants
//
//   - The only timers are deadlines in a wheel (beacon/<host>,
//     absent/<host>); no ticker, no time.Now: time comes from the runner's
//     now, and timeouts of external work are contexts.
//   - An absence alarms exactly once, period + grace after the last beacon
//     (at that instant: the wheel fires a deadline at its At); the next
//     beacon re-arms the window.
//   - A ping or an alarm never blocks the runner's loop or its worker, and a
//     failing sink is logged, never retried in a loop.
//   - An absence of a feed host is alarmed only after period + grace of
//     silence the feed could observe.
//
// # Registered numbers
//
//	DefaultBeaconPeriod 1 m    healthchecks.io's smallest period is 1 m.
//	DefaultPingTimeout  10 s   one beacon HTTP request.
//	DefaultAlarmTimeout 30 s   one alarm command or webhook call.
//	DefaultMaxHosts     1000   monitor.max_hosts (configs says why, as for the others)
//	DefaultAlarmInterval 1 m   monitor.alarm_interval
//	DefaultAlarmRate    30/min monitor.alarm_rate
//	DefaultMaxSkew      5 m    monitor.max_skew
//	DefaultSinkQueue    64     monitor.sink_queue
//
// # Imports
//
// liveness uses scheduler (Engine, Handler), deadlines (Mutation), the
// root package (the Alert type of the alert log it watches),
// internal/clock, zerolog, net/http, and internal/supervise for the alarm
// command (never os/exec directly: the command's process group dies at its
// timeout). It never imports obligations, wakes, roots, api, viper,
// configs or cmd: it knows hosts, not lanes; the daemon hands it plain
// option structs. imports_test.go enforces this.
package liveness
