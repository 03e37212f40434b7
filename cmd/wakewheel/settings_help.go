package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"github.com/wakewheel/wakewheel/configs"
)

// settingsTopic is `wakewheel help settings`: every registered setting,
// what it means, its default and why, and the three ways to set it.
func settingsTopic() *cobra.Command {
	var b strings.Builder
	b.WriteString(`Every setting can be given, highest layer first, as a flag of any verb
(--KEY=VALUE, e.g. --detect.burst_silence=1s), as an environment variable
(WAKEWHEEL_KEY, e.g. WAKEWHEEL_DETECT_BURST_SILENCE=1s), or as a key of the
config file (detect: {burst_silence: 1s}). 'wakewheel config show' prints each
value in force and where it came from; configs/REFERENCE.md has the ranges.

`)
	for _, s := range configs.Registry() {
		fmt.Fprintf(&b, "  --%s (%s, default %s)\n      %s.\n      Why the default: %s.\n", s.Key, s.Kind, orDash(s.Default), s.Means(), s.Reason)
		if allowed := s.Allowed(); allowed != "" {
			fmt.Fprintf(&b, "      Allowed: %s. Env: %s\n", allowed, s.Env())
		} else {
			fmt.Fprintf(&b, "      Env: %s\n", s.Env())
		}
	}
	return &cobra.Command{
		Use:   "settings",
		Short: "Every engine setting: what it means, its default and why, and how to set it",
		Long:  b.String(),
	}
}

func orDash(s string) string {
	if s == "" {
		return `""`
	}
	return s
}
