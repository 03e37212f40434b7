package wakes

import (
	"context"
	"errors"
	"time"

	ob "github.com/wakewheel/wakewheel/obligations"
)

// MaxWait bounds one long-poll request; clients loop for longer waits.
const MaxWait = 25 * time.Second

// waiters are the lanes' long-poll broadcast channels: a wake closes the
// lane's channel (waking every waiter at once) and the next waiter makes a
// new one. Guarded by the service's mutex.
type waiters struct {
	lanes  map[string]chan struct{}
	closed chan struct{}
}

func (w *waiters) init() {
	w.lanes = map[string]chan struct{}{}
	w.closed = make(chan struct{})
}

func (w *waiters) channel(lane string) <-chan struct{} {
	ch, ok := w.lanes[lane]
	if !ok {
		ch = make(chan struct{})
		w.lanes[lane] = ch
	}
	return ch
}

func (w *waiters) signal(lane string) {
	if ch, ok := w.lanes[lane]; ok {
		close(ch)
		delete(w.lanes, lane)
	}
}

func (w *waiters) closeAll() { close(w.closed) }

// deliver hands durable wakes to the lanes' waiters and wake hooks (the
// pipeline calls it after the wakes' records are written).
func (s *Service) deliver(wakes []ob.Wake) {
	s.mu.Lock()
	for _, w := range wakes {
		s.waiters.signal(w.Lane)
	}
	s.mu.Unlock()
	for _, w := range wakes {
		s.hooks.trigger(w)
		if s.opts.OnWake != nil {
			s.opts.OnWake(w)
		}
	}
}

// Wait is the consumer's long poll on a lane that exists (a lane nobody
// opened is refused with obligations.ErrUnknownLane: a typo must not
// create a lane; the consumer opens it first, with OpenLane). A lane the
// operator's config declares (Options.Declared) is opened by its first
// wait. Then:
//
//   - if the lane holds unconsumed work that the consumer has not seen as
//     wake id after (empty after: any unconsumed work), it delivers the
//     digest at once: a restarted consumer is presented again everything
//     it has not captured;
//   - otherwise it blocks until the lane is woken (a post, or a fallback
//     re-wake of the same wake id) and delivers the digest then.
//
// It reports false when timeout passes first. A woken waiter that finds
// nothing unconsumed (its consumer acked meanwhile) records a no-op wake
// in the ledger and goes on waiting: it never hands out an empty digest.
// The digest is returned only once its delivery is durable. A waiter whose
// lane is closed meanwhile gets ErrUnknownLane.
func (s *Service) Wait(ctx context.Context, lane, who, after string, timeout time.Duration) (ob.Digest, bool, error) {
	timer := s.clock.NewTimer(timeout)
	defer timer.Stop()
	opened, woke := false, false
	for {
		var d ob.Digest
		var delivered bool
		var ch, closed <-chan struct{}
		err := s.change(ctx, func(now time.Time) (*item, error) {
			if err := s.st.Exists(lane); err != nil {
				if opened || !errors.Is(err, ob.ErrUnknownLane) || s.opts.Declared == nil || !s.opts.Declared(lane) {
					return nil, err // a closed lane is not opened again under its waiter
				}
				eff, err := s.st.Open(lane, now)
				if err != nil {
					return nil, err
				}
				s.commitLocked(eff) // durable before any later delivery of this lane
			}
			opened = true
			st, _ := s.st.Lane(lane)
			pending := st.Counts.Total() > 0
			if !(pending && (woke || after == "" || st.WakeID != after)) && !(woke && !pending) {
				ch, closed = s.waiters.channel(lane), s.waiters.closed
				return nil, nil
			}
			got, eff, err := s.st.Deliver(lane, who, now)
			if err != nil {
				return nil, err
			}
			d, delivered = got, true
			s.countDeliveryLocked(lane, d.Noop)
			return s.commitLocked(eff), nil
		})
		switch {
		case err != nil:
			return ob.Digest{}, false, err
		case delivered && !d.Noop:
			return d, true, nil
		case delivered:
			woke = false // a no-op wake: go on waiting
			continue
		}
		select {
		case <-ch:
			woke = true
		case <-timer.C():
			return ob.Digest{}, false, nil
		case <-ctx.Done():
			return ob.Digest{}, false, ctx.Err()
		case <-closed:
			return ob.Digest{}, false, ErrClosed
		}
	}
}
