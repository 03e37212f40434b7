package configs

import "time"

// Config is the resolved configuration of wakewheel: plain values with no
// viper in sight. cmd/ hands its parts to the packages that need them
// (Engine to the scheduler, Detect to the detectors, and so on).
//
// Every field is registered in the settings table of registry.go, which
// holds its key, default, range and reason.
type Config struct {
	Engine      Engine
	Log         Log
	Detect      Detect
	Obligations Obligations
	Metrics     Metrics
	Beacon      Beacon
	Monitor     Monitor
	Agents      Agents
	Fleet       Fleet

	// Roots and Lanes are tables of the config file only (no flag or
	// environment form): see sections.go.
	Roots []Root
	Lanes map[string]Lane
}

// Beacon holds the liveness ping's settings (keys beacon.*).
type Beacon struct {
	URL     string        // beacon.url: empty for none
	Period  time.Duration // beacon.period
	KeyFile string        // beacon.key_file: the host's beacon key, empty for unsigned pings
}

// Monitor holds `wakewheel monitor`'s limits (keys monitor.*).
type Monitor struct {
	MaxHosts      int           // monitor.max_hosts
	AlarmInterval time.Duration // monitor.alarm_interval: least time between two fail alarms of a host
	AlarmRate     int           // monitor.alarm_rate: alarms a minute over all hosts
	MaxSkew       time.Duration // monitor.max_skew: a signed ping's time against the monitor's clock
	SinkQueue     int           // monitor.sink_queue: alarms waiting for one sink at most
	ProbeEvery    time.Duration // monitor.probe_every: between two probes of a fleet monitor's own sight
	ProbeLate     time.Duration // monitor.probe_late: a probe not back this long makes it blind
	AlertTimeout  time.Duration // monitor.alert_timeout: one alarm posted into the alert lane
}

// Engine holds the runner's settings (keys engine.*).
type Engine struct {
	Tick          time.Duration // engine.tick
	FlushInterval time.Duration // engine.flush_interval
	HealInterval  time.Duration // engine.heal_interval
	StoreDir      string        // engine.store_dir
	SocketPath    string        // engine.socket_path
	RetryBase     time.Duration // engine.retry_base
	RetryCap      time.Duration // engine.retry_cap
	RetryAttempts int           // engine.retry_attempts
	ActionTimeout time.Duration // engine.action_timeout
	TimerSlack    time.Duration // engine.timer_slack: at most engine.tick
}

// Log holds the logger's settings (keys log.*).
type Log struct {
	Level  string // log.level: trace, debug, info, warn or error
	Format string // log.format: auto, console or json
}

// Detect holds the detectors' windows and budgets (keys detect.*).
type Detect struct {
	BurstSilence   time.Duration // detect.burst_silence
	BurstCap       time.Duration // detect.burst_cap
	ReconcileQuiet time.Duration // detect.reconcile_quiet
	ReconcileCap   time.Duration // detect.reconcile_cap
	DrainBudget    int           // detect.drain_budget
	DrainTarget    time.Duration // detect.drain_target
	DrainMaxBatch  int           // detect.drain_max_batch
	IndexLockWait  time.Duration // detect.index_lock_wait
	IndexLockMax   time.Duration // detect.index_lock_max
	WatchBudget    int           // detect.watch_budget
}

// Obligations holds the wake doctrine's per-class timing (keys obligations.*).
type Obligations struct {
	Human    Class // obligations.human.*
	Peer     Class // obligations.peer.*
	Digest   Class // obligations.digest.*
	Alert    Class // obligations.alert.*
	MaxBody  int   // obligations.max_body, in bytes
	MaxLanes int   // obligations.max_lanes: lanes beyond it are refused
	// Retention and DedupHorizon: obligations.retention, obligations.dedup_horizon.
	Retention    time.Duration
	DedupHorizon time.Duration
}

// Class is the timing of one obligation class: while a lane holds
// unconsumed obligations of the class, its consumer is re-woken every
// Cadence, and never later than SLO after the obligation was posted.
type Class struct {
	Cadence time.Duration
	SLO     time.Duration
}

// Agents holds the defaults of the last metre to agents (keys agents.*):
// the hook command's idle window and the lanes' runners and panes.
type Agents struct {
	Idle        time.Duration // agents.idle: how long a Stop hook waits for a wake
	Timeout     time.Duration // agents.timeout: one headless run, unless the lane sets agent_timeout
	ActiveGrace time.Duration // agents.active_grace: an active session report's life
	LogCap      int           // agents.log_cap: a lane's runner log, in bytes, before rotation
	Prompt      string        // agents.prompt: the pane prompt, unless the lane sets prompt
}

// Metrics holds the optional Prometheus listener's settings (keys metrics.*).
type Metrics struct {
	Listen      string // metrics.listen: host:port, empty for no listener
	AllowRemote bool   // metrics.allow_remote
}
