package main

import (
	"bytes"
	"fmt"
	"os"

	"github.com/wakewheel/wakewheel/internal/filetrust"
	"github.com/wakewheel/wakewheel/liveness"
)

// Beacon keys: a daemon signs its pings with the key in beacon.key_file; the
// monitor checks them against its --keys file ("host key" lines). Both files
// hold secrets: each must be its user's (or root's) and unreadable by
// anyone else, as ssh requires of a private key.

// readKeyFile reads a host's beacon key (one line).
func readKeyFile(path string) ([]byte, error) {
	if err := filetrust.CheckSecret(path); err != nil {
		return nil, err
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	key := bytes.TrimSpace(b)
	if err := liveness.CheckKey(string(key)); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return key, nil
}

// readMonitorKeys reads the monitor's keys file.
func readMonitorKeys(path string) (liveness.Keys, error) {
	if err := filetrust.CheckSecret(path); err != nil {
		return nil, fmt.Errorf("--keys: %w", err)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("--keys: %w", err)
	}
	defer f.Close()
	keys, err := liveness.ParseKeys(f)
	if err != nil {
		return nil, fmt.Errorf("--keys %s: %w", path, err)
	}
	if len(keys) == 0 {
		return nil, fmt.Errorf("--keys %s: no \"host key\" line", path)
	}
	return keys, nil
}
