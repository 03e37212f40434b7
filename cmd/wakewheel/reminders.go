package main

import (
	"context"

	"github.com/rs/zerolog"
	"github.com/wakewheel/wakewheel/api"
	"github.com/wakewheel/wakewheel/scheduler"
)

// remindersCapability runs the reminders: the deadlines anyone with the
// socket may set ("reminder/<name>"); the API's reminder routes create them.
func remindersCapability(d *daemon) capability {
	return capability{
		name: "reminders",
		engine: func(eng *scheduler.Engine) error {
			eng.Register(api.ReminderKind, reminderHandler(d.log))
			return nil
		},
	}
}

// reminderHandler runs reminders: it logs the reminder with its message.
// The fire record the runner keeps is how a caller sees that it fired.
func reminderHandler(log zerolog.Logger) scheduler.Handler {
	return func(_ context.Context, f scheduler.Firing) scheduler.Outcome {
		log.Info().Str("key", f.Deadline.Key).Time("due", f.Deadline.At).
			Str("late", f.Now.Sub(f.Deadline.At).String()).Str("text", string(f.Deadline.Payload)).Msg("reminder")
		return scheduler.Succeeded()
	}
}
