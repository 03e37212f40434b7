// Package metrics exposes wakewheel's engine to Prometheus: a registry of
// wakewheel_* series built with client_golang, and an opt-in TCP listener
// that serves /metrics and /healthz on loopback.
//
// It owns the metric names and their meaning, the lateness buckets, and
// the listener's loopback rule. It reads nothing by itself: every scrape
// asks a Source (wired by cmd/) for a Snapshot of the engine, so the
// engine carries no metric code on its hot path and an idle daemon does no
// work for metrics between scrapes.
//
// Series (all prefixed wakewheel_):
//
//	deadlines_pending{kind}            gauge    pending deadlines by kind
//	jobs_waiting                       gauge    fired deadlines queued for the worker
//	deadlines_fired_total              counter  deadlines that fell due
//	action_runs_total{outcome}         counter  handler runs by outcome
//	fire_lateness_seconds              histogram how long after its due time a fire was recorded
//	alerts_total{code}                 counter  alerts raised, by code
//	backlog_paths{root}                gauge    changed paths waiting to be ingested
//	obligations_unconsumed{lane,class} gauge    posted and not yet consumed
//	wakes_total{lane}                  counter  wakes delivered
//	noop_wakes_total{lane}             counter  wakes whose digest was a no-op
//	engine_up                          gauge    1 when the last scrape reached the engine
//	build_info{version}                gauge    always 1
//
// Counters count from the start of the daemon process, as Prometheus
// expects; a restart resets them.
//
// Invariants: the listener refuses a non-loopback address unless the
// caller allows remote access explicitly (configs checks the same rule
// before the daemon starts; Listen checks the address it actually bound);
// a failing Source never fails a scrape: engine_up drops to 0 and the
// other series are served.
//
// Imports: client_golang and the standard library. Never viper, zerolog, a
// store or the scheduler: the Source is a function.
package metrics
