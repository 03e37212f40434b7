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
// went blind) to every sink, from its own goroutine; Wait waits for it.
func (m *Monitor) Raise(a Alarm) {
	m.wg.Add(1)
	go func() {
		defer m.wg.Done()
		m.raise(a)
	}()
}

// raise sends a to every sink: the log, the alarm command, the webhook.
// Each sink is tried once, with a timeout; a failing sink is logged and
// does not stop the others.
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

	if m.opts.AlarmCmd != "" {
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
			log.Error().Err(res.Err).Str("host", a.Host).Int("exit", res.ExitCode).Msg("alarm command failed")
		}
	}
	if m.opts.Webhook != "" {
		if err := m.post(a); err != nil {
			log.Error().Err(err).Str("host", a.Host).Str("webhook", m.opts.Webhook).Msg("alarm webhook failed")
		}
	}
	if m.opts.Sink != nil {
		if err := m.opts.Sink(a); err != nil {
			log.Error().Err(err).Str("host", a.Host).Msg("alarm sink failed")
		}
	}
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
