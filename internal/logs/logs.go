package logs

import (
	"io"

	"github.com/rs/zerolog"
)

// TimeFormat is how a line's time is written: RFC 3339 with milliseconds.
const TimeFormat = "2006-01-02T15:04:05.000Z07:00"

// New is a logger writing to w at level (trace, debug, info, warn or
// error; info for any other word), in the console format when format is
// "console" and as JSON otherwise. Deciding "auto" (a terminal or not) is
// the caller's: only it knows what w is.
//
// Lines are stamped to the millisecond (TimeFormat): zerolog's default is
// the second, too coarse to order a daemon's events (a burst's silence, a
// drain's runs) that come milliseconds apart. The format is zerolog's one
// setting for every logger of the process, which is why only the programs'
// loggers, made here, set it.
func New(w io.Writer, level, format string) zerolog.Logger {
	zerolog.TimeFieldFormat = TimeFormat
	lv, err := zerolog.ParseLevel(level)
	if err != nil {
		lv = zerolog.InfoLevel
	}
	out := w
	if format == "console" {
		out = zerolog.ConsoleWriter{Out: w, TimeFormat: "15:04:05.000"}
	}
	return zerolog.New(out).Level(lv).With().Timestamp().Logger()
}
