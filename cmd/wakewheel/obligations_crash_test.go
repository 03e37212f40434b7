package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/wakewheel/wakewheel/api"
	ob "github.com/wakewheel/wakewheel/obligations"
)

var (
	obCrashKills = flag.Int("ob-crash-kills", 60, "SIGKILLs in TestObligationsCrashBetweenDeliveryAndCapture")
	obCrashSeed  = flag.Uint64("ob-crash-seed", 0, "seed of TestObligationsCrashBetweenDeliveryAndCapture (0: from the clock)")
)

// TestObligationsCrashBetweenDeliveryAndCapture SIGKILLs a real daemon
// between the delivery of a digest and its capture, at random points:
// before the consumer acks, right after the ack was answered, or while the
// ack is in flight. After every restart it checks, against a model:
//   - the digest presents exactly the uncaptured suffix: every obligation
//     after the durable CONSUMED cursor, in order, nothing more or less;
//   - CONSUMED never moves backwards, and an answered ack is never lost;
//   - re-posted ids are still deduplicated (same seq, the original body);
//
// and at the end, from the daemon's ledger, that each obligation was
// stored once and consumed exactly once.
func TestObligationsCrashBetweenDeliveryAndCapture(t *testing.T) {
	if testing.Short() {
		t.Skip("crash test is not short")
	}
	seed := *obCrashSeed
	if seed == 0 {
		seed = uint64(time.Now().UnixNano())
	}
	t.Logf("seed %d (replay: -ob-crash-seed=%d)", seed, seed)
	rng := rand.New(rand.NewPCG(seed, 4))
	h := newHome(t)
	ctx := context.Background()
	const lane = "crash"

	var bodies []string // the model: bodies by seq-1
	var consumed uint64 // CONSUMED as the consumer knows it durable
	var inFlight uint64 // an ack whose answer the kill cut off: it may have landed
	modes := map[string]int{}
	d := h.start()
	c := h.client()
	if _, err := c.OpenLane(ctx, lane); err != nil {
		t.Fatal(err)
	}
	started := time.Now()
	for kill := 0; kill < *obCrashKills; kill++ {
		// Producers: new posts, and retries of old ids.
		for range 1 + rng.IntN(3) {
			seq := len(bodies) + 1
			body := fmt.Sprintf("message %d posted before kill %d", seq, kill)
			res, err := c.Post(ctx, api.PostRequest{Lane: lane, Class: "human", ID: fmt.Sprint("m", seq), Body: body})
			if err != nil || res.Duplicate || res.Obligation.Seq != uint64(seq) {
				t.Fatalf("kill %d: post #%d: %+v %v", kill, seq, res, err)
			}
			bodies = append(bodies, body)
		}
		for range rng.IntN(3) {
			seq := 1 + rng.IntN(len(bodies))
			res, err := c.Post(ctx, api.PostRequest{Lane: lane, Class: "human", ID: fmt.Sprint("m", seq), Body: "a retry"})
			if err != nil || !res.Duplicate || res.Obligation.Seq != uint64(seq) || res.Obligation.Body != bodies[seq-1] {
				t.Fatalf("kill %d: retry of m%d after %d restarts: %+v %v", kill, seq, kill, res, err)
			}
		}

		// The consumer: wait (the CLI now and then), check, capture or not.
		var dg ob.Digest
		if kill%10 == 9 {
			out, err := h.run("wait", "--lane", lane, "--timeout", "5s", "--json")
			if err != nil {
				t.Fatalf("kill %d: wakewheel wait: %v\n%s", kill, err, out)
			}
			dg = decodeDigest(t, out)
		} else {
			res, err := c.WaitOnce(ctx, lane, "agent", "", 5*time.Second)
			if err != nil || !res.Woke {
				t.Fatalf("kill %d: wait: %+v %v", kill, res, err)
			}
			dg = *res.Digest
		}
		if inFlight != 0 && dg.Consumed == inFlight {
			modes["cut-off ack landed"]++
		} else if inFlight != 0 {
			modes["cut-off ack lost"]++
		}
		consumed = checkSuffix(t, kill, dg, bodies, consumed, inFlight)
		inFlight = 0

		switch mode := rng.IntN(3); mode {
		case 0:
			modes["before ack"]++
			d.kill()
		case 1:
			modes["after ack"]++
			upto := consumed + 1 + uint64(rng.IntN(int(dg.Head-consumed))) // a prefix of what was delivered
			if _, err := c.Ack(ctx, lane, upto, ""); err != nil {
				t.Fatalf("kill %d: ack %d: %v", kill, upto, err)
			}
			consumed = upto
			d.kill()
		case 2:
			modes["during ack"]++
			upto := dg.Head
			done := make(chan error, 1)
			go func() { _, err := c.Ack(ctx, lane, upto, ""); done <- err }()
			time.Sleep(time.Duration(rng.IntN(400)) * time.Microsecond)
			d.kill()
			if err := <-done; err == nil {
				consumed = upto // answered: it must have landed
			} else {
				inFlight = upto
			}
		}
		d = h.start()
	}

	// One more post, capture everything, then audit the ledger.
	bodies = append(bodies, "the last one")
	if _, err := c.Post(ctx, api.PostRequest{Lane: lane, Class: "human", ID: fmt.Sprint("m", len(bodies)), Body: "the last one"}); err != nil {
		t.Fatal(err)
	}
	res, err := c.WaitOnce(ctx, lane, "agent", "", 5*time.Second)
	if err != nil || !res.Woke {
		t.Fatalf("final wait: %+v %v", res, err)
	}
	consumed = checkSuffix(t, *obCrashKills, *res.Digest, bodies, consumed, inFlight)
	if _, err := c.Ack(ctx, lane, res.Digest.Head, "done"); err != nil {
		t.Fatal(err)
	}
	entries, err := c.LedgerAll(ctx)
	if err != nil {
		t.Fatal(err)
	}
	d.stop(t)
	posts, consumptions := map[string]int{}, map[string]int{}
	for _, e := range entries {
		switch e.Kind {
		case ob.EntryPost:
			posts[e.ID]++
		case ob.EntryConsumption:
			consumptions[e.ID]++
		}
	}
	for seq := range bodies {
		id := fmt.Sprint("m", seq+1)
		if posts[id] != 1 || consumptions[id] != 1 {
			t.Errorf("%s: stored %d times, consumed %d times; want once and once", id, posts[id], consumptions[id])
		}
	}
	if len(posts) != len(bodies) {
		t.Errorf("%d obligations in the ledger, %d posted", len(posts), len(bodies))
	}
	t.Logf("%d SIGKILLs in %v (%v); %d obligations, each stored once and consumed exactly once",
		*obCrashKills, time.Since(started).Round(time.Millisecond), modes, len(bodies))
}

// checkSuffix checks a digest delivered after a restart against the model
// and returns the durable CONSUMED it shows.
func checkSuffix(t *testing.T, kill int, d ob.Digest, bodies []string, consumed, inFlight uint64) uint64 {
	t.Helper()
	if d.Consumed < consumed {
		t.Fatalf("kill %d: CONSUMED moved backwards: %d, an answered ack made it %d", kill, d.Consumed, consumed)
	}
	if d.Consumed != consumed && d.Consumed != inFlight {
		t.Fatalf("kill %d: CONSUMED is %d; want %d (or %d, the ack cut short by the kill)", kill, d.Consumed, consumed, inFlight)
	}
	if d.Head != uint64(len(bodies)) || d.Received != d.Head {
		t.Fatalf("kill %d: head %d received %d, want %d posted", kill, d.Head, d.Received, len(bodies))
	}
	if len(d.Messages) != int(d.Head-d.Consumed) {
		t.Fatalf("kill %d: %d messages presented, want the %d after CONSUMED %d", kill, len(d.Messages), d.Head-d.Consumed, d.Consumed)
	}
	for i, m := range d.Messages {
		if want := d.Consumed + uint64(i) + 1; m.Seq != want || m.Body != bodies[want-1] {
			t.Fatalf("kill %d: message %d is #%d %q, want #%d %q", kill, i, m.Seq, m.Body, want, bodies[want-1])
		}
	}
	return d.Consumed
}

func decodeDigest(t *testing.T, out string) ob.Digest {
	t.Helper()
	var d ob.Digest
	if err := json.Unmarshal([]byte(strings.TrimSpace(out)), &d); err != nil {
		t.Fatalf("wakewheel wait --json printed %q: %v", out, err)
	}
	return d
}
