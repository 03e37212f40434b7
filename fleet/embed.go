package fleet

import (
	"errors"
	"fmt"
	"io"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/rs/zerolog"
	"github.com/wakewheel/wakewheel/internal/clock"
	"github.com/wakewheel/wakewheel/internal/supervise"
)

// EmbedOptions configure the broker node a daemon runs beside itself for
// a fleet of one (fleet.embed): the broker program as a supervised child,
// never nats-server in the daemon's own process.
type EmbedOptions struct {
	// Program is the broker's program (wakewheel-broker), found by the
	// caller.
	Program string
	// Name is the node's server name; readiness is its answer under
	// that name, so a different server on the port is never taken for it.
	Name string
	// URL is fleet.url: the node listens at its host:port.
	URL string
	// StoreDir is the node's JetStream directory (fleet.embed).
	StoreDir string
	// Args are more flags for the program (its log level and format).
	Args []string
	// Output receives the child's log lines (the daemon's log).
	Output io.Writer
	// Alert records an alert (code, key, message) in the daemon: the node
	// ended by itself and is being restarted.
	Alert func(code, key, msg string)
	Clock clock.Clock // required
	Log   zerolog.Logger
}

const (
	// embedReady bounds a node's start: the program's own ready-wait (30 s)
	// and its address wait, and a little more.
	embedReady = 40 * time.Second
	// embedStop is how long a node has to shut down after SIGTERM before
	// it is killed (every acknowledged message is already synced).
	embedStop = 10 * time.Second
	// embedRestart is the first pause before a node that ended by itself
	// is started again, doubled per failed start up to embedRestartMax.
	embedRestart    = time.Second
	embedRestartMax = 30 * time.Second
	// embedPoll is the pause between readiness probes of a starting node.
	embedPoll = 50 * time.Millisecond
)

// Embedded is the running broker node of a fleet of one. If the node ends
// by itself it is started again (alerted, with a growing pause); Close
// stops it. The member keeps reconnecting meanwhile.
type Embedded struct {
	o    EmbedOptions
	argv []string

	mu      sync.Mutex
	child   *supervise.Child // guarded by mu until done is closed
	stop    chan struct{}
	done    chan struct{}
	closing sync.Once
}

// StartEmbedded starts the node and returns once it answers as Name at
// URL. An error says why it could not start, with the program's last
// words.
func StartEmbedded(o EmbedOptions) (*Embedded, error) {
	if o.Clock == nil {
		return nil, errors.New("fleet: EmbedOptions.Clock is required")
	}
	if o.Alert == nil {
		o.Alert = func(string, string, string) {}
	}
	u, err := url.Parse(o.URL)
	if err != nil || u.Host == "" {
		return nil, fmt.Errorf("fleet: fleet.url %q is not a nats://host:port URL", o.URL)
	}
	e := &Embedded{o: o, stop: make(chan struct{}), done: make(chan struct{}),
		argv: append([]string{o.Program, "--name", o.Name, "--listen", u.Host, "--store", o.StoreDir}, o.Args...)}
	ch, err := e.start()
	if err != nil {
		return nil, err
	}
	e.child = ch
	go e.supervise(ch)
	return e, nil
}

// start runs the program and waits until the node answers.
func (e *Embedded) start() (*supervise.Child, error) {
	ch, err := supervise.Start(supervise.Command{Argv: e.argv, Stdout: e.o.Output, Stderr: e.o.Output})
	if err != nil {
		return nil, fmt.Errorf("fleet: the broker program %s: %w", e.o.Program, err)
	}
	if err := e.awaitReady(ch); err != nil {
		ch.Stop(embedStop)
		return nil, err
	}
	e.o.Log.Info().Int("pid", ch.Pid()).Str("url", e.o.URL).Str("store", e.o.StoreDir).Msg("fleet: embedded broker node running")
	return ch, nil
}

// awaitReady probes until the node answers under its own name, the child
// ends, or embedReady runs out.
func (e *Embedded) awaitReady(ch *supervise.Child) error {
	clk := e.o.Clock
	end := clk.Now().Add(embedReady)
	pause := clk.NewTimer(embedPoll)
	defer pause.Stop()
	for {
		nc, err := nats.Connect(e.o.URL, nats.Name("wakewheel-embed-probe"), nats.Timeout(time.Second), nats.NoReconnect())
		if err == nil {
			name := nc.ConnectedServerName()
			nc.Close()
			if name == e.o.Name {
				return nil
			}
		}
		if clk.Now().After(end) {
			return fmt.Errorf("fleet: the broker node did not answer at %s within %s (its last words: %s)", e.o.URL, embedReady, lastWords(ch))
		}
		select {
		case <-ch.Done():
			return fmt.Errorf("fleet: the broker node could not start (%v): %s", ch.Err(), lastWords(ch))
		case <-pause.C():
			pause.Reset(embedPoll)
		}
	}
}

// supervise restarts a node that ended by itself until Close.
func (e *Embedded) supervise(ch *supervise.Child) {
	defer close(e.done)
	pause := embedRestart
	for {
		select {
		case <-e.stop:
			return
		case <-ch.Done():
		}
		msg := fmt.Sprintf("the embedded broker node ended by itself (%v: %s); starting it again in %s", ch.Err(), lastWords(ch), pause)
		e.o.Log.Error().Msg("fleet: " + msg)
		e.o.Alert("fleet_broker_exited", e.o.Name, msg)
		for {
			t := e.o.Clock.NewTimer(pause)
			select {
			case <-e.stop:
				t.Stop()
				return
			case <-t.C():
			}
			next, err := e.start()
			if err == nil {
				e.mu.Lock()
				e.child, ch = next, next // a Close meanwhile stops it once this returns
				e.mu.Unlock()
				pause = embedRestart
				break
			}
			pause = min(2*pause, embedRestartMax)
			e.o.Log.Error().Err(err).Dur("retry_in", pause).Msg("fleet: restarting the embedded broker node")
		}
	}
}

// Pid is the process id of the node's program now running.
func (e *Embedded) Pid() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.child.Pid()
}

// Close stops the node (SIGTERM, then SIGKILL after embedStop) and its
// supervision.
func (e *Embedded) Close() {
	e.closing.Do(func() {
		close(e.stop)
		<-e.done // supervise has returned: the child it left is the last
		e.child.Stop(embedStop)
	})
}

// lastWords is the last line the node's program wrote, without the
// program's own "wakewheel: " (the daemon says whose words they are).
func lastWords(ch *supervise.Child) string {
	out := ch.Output()
	if i := strings.LastIndexByte(out, '\n'); i >= 0 {
		out = out[i+1:]
	}
	if out == "" {
		return "it wrote nothing"
	}
	return strings.TrimPrefix(out, "wakewheel: ")
}
