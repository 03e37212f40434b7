package main

import (
	"os"

	"github.com/mattn/go-isatty"
	"github.com/rs/zerolog"
	"github.com/wakewheel/wakewheel/configs"
	"github.com/wakewheel/wakewheel/internal/logs"
)

// newLogger logs to w: the console format on a terminal (or when asked),
// JSON otherwise.
func newLogger(cfg configs.Log, w *os.File) zerolog.Logger {
	return logs.New(w, cfg.Level, logFormat(cfg, w))
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
