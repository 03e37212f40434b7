package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"sync"
	"sync/atomic"
	"time"

	"github.com/wakewheel/wakewheel/api"
)

// The 10 callers of the load phases (five on status, five on deadlines
// pages of 1,000 from scattered places of the listing) run in a process of
// their own (-only callers): the probes' process then times its posts with
// no caller goroutine ahead of it for a CPU of its own runtime, so a post's
// latency is the daemon's and the machine's, not the bench's. Both phases
// and every daemon get the same.
type callers struct {
	cmd   *exec.Cmd
	stop  io.Closer
	out   *bufio.Scanner
	start time.Time
}

// startCallers starts the callers' process on sock.
func startCallers(sock string) (*callers, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(self, "-only", "callers", "-sock", sock)
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	return &callers{cmd: cmd, stop: in, out: bufio.NewScanner(out), start: time.Now()}, nil
}

// wait stops the callers and returns how many status answers and pages
// they got, and the CPU time their process used.
func (c *callers) wait() (statuses, pages int64, cpu time.Duration, err error) {
	c.stop.Close()
	if c.out.Scan() {
		_, err = fmt.Sscan(c.out.Text(), &statuses, &pages, &cpu)
	}
	if werr := c.cmd.Wait(); err == nil {
		err = werr
	}
	return statuses, pages, cpu, err
}

// runCallers is the callers' side: the 10 callers loop on sock until stdin
// closes, then it prints the status answers and the pages they got, and
// its CPU time in nanoseconds.
func runCallers(sock string) error {
	ctx := context.Background()
	client := api.NewClient(sock)
	stop := make(chan struct{})
	go func() { io.Copy(io.Discard, os.Stdin); close(stop) }()
	var wg sync.WaitGroup
	var listed, statuses atomic.Int64
	for i := range 10 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := 0; ; j++ {
				select {
				case <-stop:
					return
				default:
				}
				if i%2 == 0 {
					if _, err := client.Status(ctx); err == nil {
						statuses.Add(1)
					}
					continue
				}
				// A whole page is read but not decoded: the callers run on the
				// same two cores as the daemon, and the measure is the daemon's.
				after := fmt.Sprintf("%sload-%07d", api.ReminderPrefix, (i*7919+j*104729)%1_000_000)
				path := "/v1/deadlines?limit=1000&prefix=" + url.QueryEscape(api.ReminderPrefix) + "&after=" + url.QueryEscape(after)
				if err := client.Do(ctx, http.MethodGet, path, nil, nil); err == nil {
					listed.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	_, err := fmt.Println(statuses.Load(), listed.Load(), int64(selfCPU()))
	return err
}
