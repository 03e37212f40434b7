package liveness

import (
	"fmt"
	"strings"
	"time"
)

// Alarm limits (registered numbers; doc.go says why).
const (
	DefaultAlarmInterval = time.Minute
	DefaultAlarmRate     = 30 // alarms a minute, all hosts together
	DefaultMaxHosts      = 1000
	DefaultMaxSkew       = 5 * time.Minute
)

// limiter decides which alarms go to the sinks. Per host, a fail alarm is
// sent at most once an interval: the fails between are coalesced, counted
// in the next alarm of the host. Over all hosts, a token bucket lets rate
// alarms a minute through (burst rate); the others are suppressed,
// counted, and reported in the next alarm that goes out, or in a summary
// alarm (Summary). An absence or a recovery is never coalesced per host:
// each is one event of a deadline, not something a sender can repeat. The
// limiter is pure: time is given; the monitor's mutex guards it.
type limiter struct {
	interval time.Duration
	rate     int

	tokens   float64
	refilled time.Time
	lastFail map[string]time.Time // host → last fail alarm sent
	held     map[string]int       // host → fails coalesced since
	dropped  int                  // alarms suppressed by the rate since the last report
	hosts    []string             // some of their hosts, for the report
}

func newLimiter(interval time.Duration, rate int) *limiter {
	return &limiter{interval: interval, rate: rate, tokens: float64(rate),
		lastFail: map[string]time.Time{}, held: map[string]int{}}
}

// admit says whether a goes out at now; when it does, its message gains
// what was coalesced or suppressed before it.
func (l *limiter) admit(a *Alarm, now time.Time) bool {
	if a.Reason == "fail" {
		if last, ok := l.lastFail[a.Host]; ok && now.Sub(last) < l.interval {
			l.held[a.Host]++
			return false
		}
	}
	if !l.take(now) {
		l.dropped++
		if len(l.hosts) < 5 && !contains(l.hosts, a.Host) {
			l.hosts = append(l.hosts, a.Host)
		}
		return false
	}
	if a.Reason == "fail" {
		l.lastFail[a.Host] = now
		if n := l.held[a.Host]; n > 0 {
			a.Message += fmt.Sprintf(" (and %d more fail beacons from %s coalesced since the last alarm)", n, a.Host)
			delete(l.held, a.Host)
		}
	}
	if s := l.report(); s != "" {
		a.Message += " (" + s + ")"
	}
	return true
}

// take spends a token of the bucket, refilled at rate a minute.
func (l *limiter) take(now time.Time) bool {
	if !l.refilled.IsZero() && now.After(l.refilled) {
		l.tokens = min(float64(l.rate), l.tokens+now.Sub(l.refilled).Minutes()*float64(l.rate))
	}
	l.refilled = now
	if l.tokens < 1 {
		return false
	}
	l.tokens--
	return true
}

// Summary returns the alarm that reports suppressed alarms at now, if any
// are waiting and the bucket allows it.
func (l *limiter) summary(now time.Time) (Alarm, bool) {
	if l.dropped == 0 || !l.take(now) {
		return Alarm{}, false
	}
	return Alarm{Reason: "suppressed", At: now, Message: l.report()}, true
}

// next is when a summary can go out: once a token is back.
func (l *limiter) next(now time.Time) time.Time {
	return now.Add(time.Duration(float64(time.Minute) / float64(l.rate)))
}

func (l *limiter) report() string {
	if l.dropped == 0 {
		return ""
	}
	s := fmt.Sprintf("%d alarms suppressed by the rate limit of %d a minute, from %s", l.dropped, l.rate, strings.Join(l.hosts, ", "))
	if l.dropped > len(l.hosts) {
		s += ", ..."
	}
	l.dropped, l.hosts = 0, nil
	return s
}

func contains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}
