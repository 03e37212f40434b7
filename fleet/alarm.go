package fleet

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/wakewheel/wakewheel/internal/clock"
	"github.com/wakewheel/wakewheel/liveness"
	ob "github.com/wakewheel/wakewheel/obligations"
)

// AlarmOrigin is the origin of the alert obligations a fleet monitor posts.
const AlarmOrigin = "monitor"

// AlarmToLane returns an alarm sink that posts each alarm as an alert
// obligation into lane, through the stream to the lane's home, like any
// forwarded post: the operator's agent is woken by it. The alert is
// coalesced per host and reason (its Key), and its id names the alarm, so
// a re-sent alarm is absorbed. The monitor runs each sink from a queue
// and a goroutine of its own (liveness/sinks.go), so a broker in an
// election delays only this sink, never the next absence; a post the
// broker does not take within timeout is an error the monitor logs and
// counts; the other sinks have the alarm already.
func AlarmToLane(c *Conn, lane string, timeout time.Duration, clk clock.Clock) func(liveness.Alarm) error {
	return func(a liveness.Alarm) error {
		if err := postAlarm(c, lane, timeout, clk, a); err != nil {
			return fmt.Errorf("fleet: the alarm did not reach the alert lane %s: %w", lane, err)
		}
		return nil
	}
}

// postAlarm posts a into lane, trying again every alarmRetry until
// timeout: a broker in an election, or the monitor's connection moving to
// another node, delays the alert; only a lane with no home fails at once.
func postAlarm(c *Conn, lane string, timeout time.Duration, clk clock.Clock, a liveness.Alarm) error {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	var home string
	err := untilDone(ctx, c, clk, func(actx context.Context) (bool, error) {
		kv, err := c.KV(actx, HomesBucket)
		if err != nil {
			return false, err
		}
		e, err := kv.Get(actx, Encode(lane))
		if errors.Is(err, jetstream.ErrKeyNotFound) {
			return true, fmt.Errorf("fleet: the alert lane %s has no home (open it on the operator's host): %w", lane, err)
		}
		if err != nil {
			return false, err
		}
		home = string(e.Value())
		return true, nil
	})
	if err != nil {
		return err
	}
	o := ob.Obligation{Lane: lane, Class: ob.ClassAlert, Key: "monitor/" + a.Host + "/" + a.Reason,
		ID:      fmt.Sprintf("alarm-%s-%s-%d", a.Host, a.Reason, a.At.UnixNano()),
		Body:    a.Message,
		Locator: ob.Locator{Repo: "fleet", File: "hosts/" + a.Host}}
	env := envelopeOf(o, home, AlarmOrigin, a.At)
	data, err := json.Marshal(env)
	if err != nil {
		return err
	}
	// The message id makes a re-sent alarm one obligation.
	return untilDone(ctx, c, clk, func(actx context.Context) (bool, error) {
		msg := nats.NewMsg(env.Subject())
		msg.Data = data
		msg.Header.Set(jetstream.MsgIDHeader, MsgID(lane, o.ID))
		_, err := c.js.PublishMsg(actx, msg, jetstream.WithExpectStream(StreamName))
		return err == nil, err
	})
}

// alarmRetry is the pause between two tries of an alarm's post: the
// connection's own reconnect wait.
const alarmRetry = 250 * time.Millisecond

// untilDone calls try (each call bounded by one request's timeout) until
// it says done or ctx ends; it returns the last error.
func untilDone(ctx context.Context, c *Conn, clk clock.Clock, try func(context.Context) (bool, error)) error {
	for {
		actx, cancel := context.WithTimeout(ctx, c.opts.RequestTimeout)
		done, err := try(actx)
		cancel()
		if done {
			return err
		}
		t := clk.NewTimer(alarmRetry)
		select {
		case <-ctx.Done():
			t.Stop()
			return errors.Join(ctx.Err(), err)
		case <-t.C():
		}
	}
}
