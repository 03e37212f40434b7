package supervise

import (
	"io"
	"os"
	"time"

	"github.com/wakewheel/wakewheel/internal/clock"
)

// pipes are the child's output pipes, read by the run itself rather than
// by os/exec: Wait then returns as soon as the command exits, the run
// kills what is left of the group, and only then waits (bounded) for the
// readers — so a background grandchild holding stdout costs nothing.
type pipes struct {
	r, w []*os.File
	done chan struct{}
}

// newPipes makes one pipe per sink and starts copying each into its sink.
func newPipes(sinks []io.Writer) (*pipes, error) {
	p := &pipes{done: make(chan struct{}, len(sinks))}
	for _, s := range sinks {
		r, w, err := os.Pipe()
		if err != nil {
			p.closeWriters()
			p.closeReaders()
			return nil, err
		}
		p.r, p.w = append(p.r, r), append(p.w, w)
		go func() {
			_, _ = io.Copy(s, r)
			p.done <- struct{}{}
		}()
	}
	return p, nil
}

func (p *pipes) closeWriters() {
	for _, w := range p.w {
		w.Close()
	}
}

func (p *pipes) closeReaders() {
	for _, r := range p.r {
		r.Close()
	}
}

// drain waits up to wait for every reader to reach the end of its pipe,
// then closes the read ends (a holder that left the group gets EPIPE).
func (p *pipes) drain(wait time.Duration) {
	t := clock.Real{}.NewTimer(wait)
	defer t.Stop()
	left := len(p.r)
	for left > 0 {
		select {
		case <-p.done:
			left--
		case <-t.C():
			p.closeReaders()
			for ; left > 0; left-- { // a closed reader ends its copy
				<-p.done
			}
		}
	}
	p.closeReaders()
}
