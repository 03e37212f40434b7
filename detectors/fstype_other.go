//go:build !linux

package detectors

// unwatchableFS knows no unwatchable filesystem types off Linux.
func unwatchableFS(string) (string, bool) { return "", false }

func watchLimitHint() string { return "" }

func queueLimitHint() string { return "" }
