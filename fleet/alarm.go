package fleet

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/rs/zerolog"
	"github.com/wakewheel/wakewheel/liveness"
	ob "github.com/wakewheel/wakewheel/obligations"
)

// AlarmOrigin is the origin of the alert obligations a fleet monitor posts.
const AlarmOrigin = "monitor"

// alarmQueue bounds the alarms waiting for the broker.
const alarmQueue = 64

// AlarmToLane returns an alarm sink that posts each alarm as an alert
// obligation into lane, through the stream to the lane's home, like any
// forwarded post: the operator's agent is woken by it. The alert is
// coalesced per host and reason (its Key), and its id names the alarm, so
// a re-sent alarm is absorbed. The sink only queues: the monitor raises
// alarms on its worker, and a broker in an election must not delay the
// next absence. A post the broker does not take within timeout is logged;
// the other sinks have the alarm already. Stop the returned goroutine by
// cancelling ctx.
func AlarmToLane(ctx context.Context, c *Conn, lane string, timeout time.Duration, log zerolog.Logger) func(liveness.Alarm) error {
	q := make(chan liveness.Alarm, alarmQueue)
	go func() {
		for {
			select {
			case <-ctx.Done():
				return
			case a := <-q:
				if err := postAlarm(c, lane, timeout, a); err != nil {
					log.Error().Err(err).Str("host", a.Host).Str("lane", lane).Msg("fleet monitor: the alarm did not reach the alert lane")
				}
			}
		}
	}()
	return func(a liveness.Alarm) error {
		select {
		case q <- a:
			return nil
		default:
			return fmt.Errorf("fleet: %d alarms wait for the broker already; this one is not posted to lane %s", alarmQueue, lane)
		}
	}
}

func postAlarm(c *Conn, lane string, timeout time.Duration, a liveness.Alarm) error {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	kv, err := c.KV(ctx, HomesBucket)
	if err != nil {
		return err
	}
	e, err := kv.Get(ctx, Encode(lane))
	if err != nil {
		return fmt.Errorf("fleet: the alert lane %s has no home (open it on the operator's host): %w", lane, err)
	}
	o := ob.Obligation{Lane: lane, Class: ob.ClassAlert, Key: "monitor/" + a.Host + "/" + a.Reason,
		ID:      fmt.Sprintf("alarm-%s-%s-%d", a.Host, a.Reason, a.At.UnixNano()),
		Body:    a.Message,
		Locator: ob.Locator{Repo: "fleet", File: "hosts/" + a.Host}}
	env := envelopeOf(o, string(e.Value()), AlarmOrigin, a.At)
	data, err := json.Marshal(env)
	if err != nil {
		return err
	}
	msg := nats.NewMsg(env.Subject())
	msg.Data = data
	msg.Header.Set(jetstream.MsgIDHeader, MsgID(lane, o.ID))
	// The client retries while the stream has no leader (an election).
	_, err = c.js.PublishMsg(ctx, msg, jetstream.WithExpectStream(StreamName),
		jetstream.WithRetryAttempts(int(timeout/(250*time.Millisecond))), jetstream.WithRetryWait(250*time.Millisecond))
	return err
}
