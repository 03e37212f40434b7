package main

import (
	"strings"
	"testing"
)

// Shell completion is cobra's built-in `completion` verb; --version prints
// the version set at build time (-ldflags "-X main.version=...").
func TestCompletionAndVersion(t *testing.T) {
	h := newHome(t)
	for _, shell := range []string{"bash", "zsh", "fish"} {
		out, err := h.command("completion", shell).Output()
		if err != nil || !strings.Contains(string(out), "wakewheel") || len(out) < 1000 {
			t.Errorf("completion %s: %v, %d bytes", shell, err, len(out))
		}
	}
	out, err := h.command("__complete", "doc").Output()
	if err != nil || !strings.Contains(string(out), "doctor") {
		t.Errorf("completing \"doc\": %v\n%s", err, out)
	}
	out, err = h.command("--version").Output()
	if err != nil || strings.TrimSpace(string(out)) != "wakewheel version "+version {
		t.Errorf("--version: %v %q", err, out)
	}
}
