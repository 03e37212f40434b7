package main

import (
	"io"
	"os"
	"time"

	"github.com/mattn/go-isatty"
	"github.com/rs/zerolog"
	"github.com/wakewheel/wakewheel/configs"
)

// newLogger logs to w: the console format on a terminal (or when asked),
// JSON otherwise.
func newLogger(cfg configs.Log, w *os.File) zerolog.Logger {
	level, err := zerolog.ParseLevel(cfg.Level)
	if err != nil {
		level = zerolog.InfoLevel
	}
	var out io.Writer = w
	if logFormat(cfg, w) == "console" {
		out = zerolog.ConsoleWriter{Out: w, TimeFormat: time.TimeOnly}
	}
	return zerolog.New(out).Level(level).With().Timestamp().Logger()
}

// logFormat is the format a log written to w takes: "console" when asked,
// or for "auto" on a terminal; "json" otherwise. (The broker program is
// told the answer, since its output may be a pipe into this log.)
func logFormat(cfg configs.Log, w *os.File) string {
	if cfg.Format == "console" ||
		cfg.Format == "auto" && (isatty.IsTerminal(w.Fd()) || isatty.IsCygwinTerminal(w.Fd())) {
		return "console"
	}
	return "json"
}
