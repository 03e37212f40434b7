package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/rs/zerolog"
	"github.com/wakewheel/wakewheel/api"
	ob "github.com/wakewheel/wakewheel/obligations"
	"github.com/wakewheel/wakewheel/reminders"
	"github.com/wakewheel/wakewheel/scheduler"
)

// remindersCapability runs the reminders: the deadlines anyone with the
// socket may set ("reminder/<name>"); the API's reminder routes create them.
// post delivers the alert of a reminder that names a lane.
func remindersCapability(d *daemon, post func(context.Context, ob.Obligation) (ob.Obligation, error)) capability {
	return capability{
		name: "reminders",
		engine: func(eng *scheduler.Engine) error {
			eng.Register(api.ReminderKind, reminderHandler(d.log, post))
			return nil
		},
	}
}

// reminderHandler runs reminders: it logs the reminder with its message
// and, when it names a lane, posts its alert there (reminders.Obligation:
// coalesced per reminder, idempotent per due time). The fire record the
// runner keeps is how a caller sees that it fired (`wakewheel fires`).
//
// A lane that no longer exists fails the fire (an alert says so); a store
// that cannot take the post retries it.
func reminderHandler(log zerolog.Logger, post func(context.Context, ob.Obligation) (ob.Obligation, error)) scheduler.Handler {
	return func(ctx context.Context, f scheduler.Firing) scheduler.Outcome {
		name := strings.TrimPrefix(f.Deadline.Key, reminders.Prefix)
		p, err := reminders.Decode(f.Deadline.Payload)
		if err != nil {
			return scheduler.Failed(fmt.Errorf("reminder %s: %w", name, err))
		}
		ev := log.Info().Str("key", f.Deadline.Key).Time("due", f.Deadline.At).
			Str("late", f.Now.Sub(f.Deadline.At).Round(time.Millisecond).String()).Str("text", p.Message)
		o, ok := reminders.Obligation(name, p, f.Deadline.At)
		if !ok {
			ev.Msg("reminder")
			return scheduler.Succeeded()
		}
		got, err := post(ctx, o)
		switch {
		case errors.Is(err, ob.ErrUnknownLane), errors.Is(err, ob.ErrTooManyLanes):
			return scheduler.Failed(fmt.Errorf("reminder %s could not post to lane %s: %w", name, p.Lane, err))
		case err != nil:
			return scheduler.RetryLater(fmt.Errorf("reminder %s: posting to lane %s: %w", name, p.Lane, err))
		}
		ev.Str("lane", got.Lane).Uint64("seq", got.Seq).Bool("duplicate", got.Duplicate).Msg("reminder posted an alert")
		return scheduler.Succeeded()
	}
}
