package roots

import (
	"time"

	"github.com/wakewheel/wakewheel/deadlines"
	"github.com/wakewheel/wakewheel/scheduler"
)

// QuietVerbs are the API verbs that are not traffic: reads of the engine's
// own state (an operator or agent looking at status must not change what
// it looks at) and the lease verbs (a person taking a lease is about to
// work, not asking for freshness). Every other request, on any transport
// (socket API, CLI, MCP, which all reach the daemon through the socket),
// is traffic.
var QuietVerbs = map[string]bool{
	"status": true, "alerts": true, "fires": true, "deadlines": true,
	"roots": true, "leases": true, "lease": true, "ledger": true, "lanes": true,
}

// Traffic is the API's request hook: a request of a verb that is not
// quiet pushes a detection of every armed root that no watcher covers
// (polling or evicted): freshness "when seen". It never blocks and never
// fails: the detection runs later on the engine's worker, so no request,
// heavy or light, pays for it inline; at most one detection per
// PollInterval per root.
func (m *Manager) Traffic(verb string) {
	if QuietVerbs[verb] {
		return
	}
	select {
	case m.trafficC <- struct{}{}:
	default: // a tick is already due: this request rides on it
	}
}

func (m *Manager) trafficLoop() {
	defer m.wg.Done()
	for {
		select {
		case <-m.ctx.Done():
			return
		case <-m.trafficC:
		}
		m.tick()
	}
}

// tick pushes a detection of every polled root, no sooner than
// PollInterval after its last one.
func (m *Manager) tick() {
	type poll struct {
		path string
		last time.Time
	}
	var polls []poll
	m.mu.Lock()
	for path, r := range m.roots {
		if !r.rec.Armed {
			continue
		}
		if mode, _, _ := r.mode(); mode == ModePolling || mode == ModeEvicted {
			polls = append(polls, poll{path, r.rec.LastDetection})
		}
	}
	m.mu.Unlock()
	if len(polls) == 0 {
		return
	}
	err := m.do(m.ctx, func(e *scheduler.Engine, now time.Time) {
		for _, p := range polls {
			at := now
			if next := p.last.Add(m.opts.PollInterval); next.After(at) {
				at = next
			}
			if _, err := e.Apply(now, deadlines.Mutation{Op: deadlines.OpPush, Key: Key(KindDetect, p.path), Kind: KindDetect, At: at}); err != nil {
				m.log.Warn().Err(err).Str("root", p.path).Msg("traffic tick")
			}
		}
	})
	if err != nil && m.ctx.Err() == nil {
		m.log.Warn().Err(err).Msg("traffic tick not taken; the request was served anyway")
	}
}
