package logs

import (
	"io"
	"time"

	"github.com/rs/zerolog"
)

// New is a logger writing to w at level (trace, debug, info, warn or
// error; info for any other word), in the console format when format is
// "console" and as JSON otherwise. Deciding "auto" (a terminal or not) is
// the caller's: only it knows what w is.
func New(w io.Writer, level, format string) zerolog.Logger {
	lv, err := zerolog.ParseLevel(level)
	if err != nil {
		lv = zerolog.InfoLevel
	}
	out := w
	if format == "console" {
		out = zerolog.ConsoleWriter{Out: w, TimeFormat: time.TimeOnly}
	}
	return zerolog.New(out).Level(lv).With().Timestamp().Logger()
}
