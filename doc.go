// Package wakewheel holds the domain types shared by the engine's packages:
// the records that cross the boundary between the runner and the store
// (alerts, fire records). The engine itself lives in the sub-packages:
//
//	deadlines/    the hierarchical timing wheel and the deadline rules (pure)
//	obligations/  the wake doctrine as pure state (pure)
//	scheduler/    the runner: clock, wheel, store, the single worker
//	detectors/    fs, git and traffic detectors; they only push or extend deadlines
//	store/        LevelDB persistence
//	configs/      viper options, defaults, validation, live reload
//	cmd/wakewheel the binary
//
// This package imports nothing of the project and no third-party module.
package wakewheel
