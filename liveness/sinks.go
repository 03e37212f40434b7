package liveness

import (
	"context"
	"sync"
	"sync/atomic"
	"time"
)

// DefaultSinkQueue is how many alarms may wait for one sink (registered as
// monitor.sink_queue; configs says why).
const DefaultSinkQueue = 64

// SinkStatus is what the monitor reports of one alarm sink.
type SinkStatus struct {
	Name    string `json:"name"`
	Sent    uint64 `json:"sent"`
	Failed  uint64 `json:"failed"`
	Dropped uint64 `json:"dropped"` // the queue was full: never sent
	Queued  int    `json:"queued"`
}

// sink is one alarm destination (the command, the webhook, the fleet's
// alert lane) with a queue and a goroutine of its own: raising an alarm
// only queues it, so a slow sink delays neither the monitor's worker nor
// the other sinks, and a sink that cannot keep up drops (and counts) the
// alarms beyond its queue instead of holding anyone.
type sink struct {
	name    string
	deliver func(Alarm) error
	q       chan Alarm
	done    chan struct{}

	sent, failed, dropped atomic.Uint64
}

func newSink(name string, size int, deliver func(Alarm) error, failed func(name string, a Alarm, err error)) *sink {
	s := &sink{name: name, deliver: deliver, q: make(chan Alarm, size), done: make(chan struct{})}
	go func() {
		defer close(s.done)
		for a := range s.q {
			if err := s.deliver(a); err != nil {
				s.failed.Add(1)
				failed(s.name, a, err)
				continue
			}
			s.sent.Add(1)
		}
	}()
	return s
}

// offer queues a without waiting; false when the queue is full.
func (s *sink) offer(a Alarm) bool {
	select {
	case s.q <- a:
		return true
	default:
		s.dropped.Add(1)
		return false
	}
}

func (s *sink) status() SinkStatus {
	return SinkStatus{Name: s.name, Sent: s.sent.Load(), Failed: s.failed.Load(), Dropped: s.dropped.Load(), Queued: len(s.q)}
}

// sinks are the monitor's alarm sinks; close ends them once the alarms
// already queued are delivered.
type sinks struct {
	mu     sync.Mutex
	list   []*sink
	closed bool
}

// offer queues a to every sink and returns the names of those whose queue
// was full.
func (ss *sinks) offer(a Alarm) (full []string) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if ss.closed {
		return nil
	}
	for _, s := range ss.list {
		if !s.offer(a) {
			full = append(full, s.name)
		}
	}
	return full
}

// close ends the sinks: each delivers what it has queued, for at most
// wait in all (a hanging webhook must not hold a monitor's stop for its
// whole queue); it returns how many alarms were left undelivered.
func (ss *sinks) close(wait time.Duration) (left int) {
	ss.mu.Lock()
	if !ss.closed {
		ss.closed = true
		for _, s := range ss.list {
			close(s.q)
		}
	}
	list := ss.list
	ss.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	for _, s := range list {
		select {
		case <-s.done:
		case <-ctx.Done():
			left += len(s.q)
		}
	}
	return left
}

func (ss *sinks) status() []SinkStatus {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	out := make([]SinkStatus, 0, len(ss.list))
	for _, s := range ss.list {
		out = append(out, s.status())
	}
	return out
}
