package liveness

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"time"

	"github.com/wakewheel/wakewheel/internal/supervise"
)

// DefaultAlarmTimeout bounds one alarm command or webhook call.
const DefaultAlarmTimeout = 30 * time.Second

// maxAlarmOutput is how much of an alarm command's output (its tail) is
// kept for the log.
const maxAlarmOutput = 4 << 10

// Alarm is what the monitor raises. Reason is "absent" (no beacon for
// period + grace), "fail" (the host sent a fail beacon) or "recovered"
// (an absent host beacons again).
type Alarm struct {
	Host     string    `json:"host"`
	Reason   string    `json:"reason"`
	Message  string    `json:"message,omitempty"`
	LastSeen time.Time `json:"last_seen,omitzero"`
	At       time.Time `json:"at"`
}

// Raise sends an alarm that is not about one host's beacons (a feed that
// went blind) to every sink.
func (m *Monitor) Raise(a Alarm) { m.raise(a) }

// raise records a, logs it and queues it for every other sink (the alarm
// command, the webhook, the feed's sink), each of which delivers from its
// own goroutine with a timeout (sinks.go): raise never waits for a sink,
// so a slow one cannot delay the next alarm. A sink whose queue is full
// drops the alarm, counts it (SinkStatus.Dropped) and says so in the log.
func (m *Monitor) raise(a Alarm) {
	m.mu.Lock()
	m.alarms = append(m.alarms, a)
	if len(m.alarms) > maxAlarms {
		m.alarms = slices0(m.alarms[len(m.alarms)-maxAlarms:])
	}
	m.mu.Unlock()
	log := m.opts.Logger
	ev := log.Error()
	if a.Reason == "recovered" {
		ev = log.Warn()
	}
	ev.Str("host", a.Host).Str("reason", a.Reason).Time("last_seen", a.LastSeen).Msg("alarm: " + a.Message)
	if full := m.sinks.offer(a); len(full) > 0 {
		log.Error().Strs("sinks", full).Str("host", a.Host).Str("reason", a.Reason).Int("queue", m.opts.SinkQueue).
			Msg("alarm dropped by sinks whose queue is full (they are slower than the alarms; see /status sinks)")
	}
}

// newSinks starts a goroutine and a queue for each configured sink.
func (m *Monitor) newSinks() {
	failed := func(name string, a Alarm, err error) {
		m.opts.Logger.Error().Err(err).Str("sink", name).Str("host", a.Host).Str("reason", a.Reason).Msg("alarm sink failed")
	}
	add := func(name string, deliver func(Alarm) error) {
		m.sinks.list = append(m.sinks.list, newSink(name, m.opts.SinkQueue, deliver, failed))
	}
	if m.opts.AlarmCmd != "" {
		add("command", m.runCommand)
	}
	if m.opts.Webhook != "" {
		add("webhook", m.post)
	}
	if m.opts.Sink != nil {
		add("feed", m.opts.Sink)
	}
}

// runCommand runs the operator's alarm command for a, within the timeout
// (its whole process group dies at it).
func (m *Monitor) runCommand(a Alarm) error {
	res := supervise.Run(context.Background(), supervise.Command{
		Line:    m.opts.AlarmCmd,
		Timeout: m.opts.Timeout,
		Env: append(os.Environ(),
			"WAKEWHEEL_ALARM_HOST="+a.Host,
			"WAKEWHEEL_ALARM_REASON="+a.Reason,
			"WAKEWHEEL_ALARM_MESSAGE="+a.Message,
			"WAKEWHEEL_ALARM_LAST_SEEN="+stamp(a.LastSeen),
			"WAKEWHEEL_ALARM_AT="+stamp(a.At),
		),
		OutputCap: maxAlarmOutput,
	})
	if res.Err != nil {
		return fmt.Errorf("alarm command (exit %d): %w", res.ExitCode, res.Err)
	}
	return nil
}

func (m *Monitor) post(a Alarm) error {
	body, err := json.Marshal(a)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), m.opts.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, m.opts.Webhook, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := m.opts.Client.Do(req)
	if err != nil {
		return err
	}
	resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("HTTP %d", resp.StatusCode)
	}
	return nil
}

func stamp(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339Nano)
}

// slices0 copies s into a fresh slice, so the alarm log does not pin an
// ever-growing backing array.
func slices0(s []Alarm) []Alarm { return append([]Alarm(nil), s...) }
