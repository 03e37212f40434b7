package main

import (
	"fmt"
	"sort"
	"strings"
	"time"
)

// approx is a duration as a person reads it: to the second from a minute
// up, to the tenth of a second below (never 9m54.427605038s).
func approx(d time.Duration) string {
	switch a := max(d, -d); {
	case a >= time.Minute:
		return d.Round(time.Second).String()
	case a >= time.Second:
		return d.Round(100 * time.Millisecond).String()
	}
	return d.Round(time.Millisecond).String()
}

// until is how long until t, as approx says it.
func until(t time.Time) string { return approx(time.Until(t)) }

// tally is counts by name in words, largest first ("3 done, 1 retry"), or
// "none".
func tally(m map[string]uint64) string {
	if len(m) == 0 {
		return "none"
	}
	names := make([]string, 0, len(m))
	for k := range m {
		names = append(names, k)
	}
	sort.Slice(names, func(i, j int) bool {
		if m[names[i]] != m[names[j]] {
			return m[names[i]] > m[names[j]]
		}
		return names[i] < names[j]
	})
	parts := make([]string, len(names))
	for i, k := range names {
		parts[i] = fmt.Sprintf("%d %s", m[k], k)
	}
	return strings.Join(parts, ", ")
}
