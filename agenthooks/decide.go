package agenthooks

import (
	"fmt"
	"strings"
	"time"

	ob "github.com/wakewheel/wakewheel/obligations"
)

// ShouldBlock is the Stop rule: block when the lane holds unconsumed work,
// except for the wake this session's Stop hook already blocked with while
// the agent is still continuing from that block (stop_hook_active). So a
// wake is blocked at most once per stop chain, and no loop is possible: a
// chain only goes on when a newer wake arrives.
func ShouldBlock(stopHookActive bool, d ob.Digest, lastBlock string) bool {
	if d.Noop {
		return false
	}
	return !(stopHookActive && d.WakeID == lastBlock)
}

// BlockReason is the agent's next instruction when a Stop hook blocks: the
// digest (who, lane, head, every unconsumed human and peer message with its
// locator, machine digests coalesced, alerts) and how to consume it.
func BlockReason(d ob.Digest) string {
	var b strings.Builder
	b.WriteString("wakewheel: the lane you serve has unconsumed work. Act on it now.\n\n")
	b.WriteString(d.Text())
	fmt.Fprintf(&b, "\nWhen you have acted on every message above, run: wakewheel ack --lane %s --upto %d\n", d.Lane, d.Head)
	return b.String()
}

// ResumeContext is what a starting session is told: the digest since
// CONSUMED (since the last park after a clear or a compact).
func ResumeContext(d ob.Digest, source string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "wakewheel (session %s): you serve lane %s.\n", source, d.Lane)
	if d.Noop {
		fmt.Fprintf(&b, "Nothing is unconsumed (consumed %d of head %d). Wait for work; you will be told.\n", d.Consumed, d.Head)
		return b.String()
	}
	b.WriteString(d.Text())
	fmt.Fprintf(&b, "\nWhen you have acted on every message above, run: wakewheel ack --lane %s --upto %d\n", d.Lane, d.Head)
	return b.String()
}

// PromptContext lists the unconsumed human messages for a submitted prompt
// ("" when there are none).
func PromptContext(d ob.Digest) string {
	var humans []ob.Obligation
	for _, o := range d.Messages {
		if o.Class == ob.ClassHuman {
			humans = append(humans, o)
		}
	}
	if len(humans) == 0 {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "wakewheel: lane %s has %d unconsumed message(s) from people:\n", d.Lane, len(humans))
	for _, o := range humans {
		fmt.Fprintf(&b, "human #%d id=%s posted %s\n", o.Seq, o.ID, o.Posted.UTC().Format(time.RFC3339))
		for line := range strings.Lines(o.Body) {
			b.WriteString("  " + strings.TrimRight(line, "\n") + "\n")
		}
	}
	if rest := d.Counts.Total() - len(humans); rest > 0 {
		fmt.Fprintf(&b, "and %d other unconsumed obligation(s): wakewheel digest --lane %s\n", rest, d.Lane)
	}
	fmt.Fprintf(&b, "When you have acted on all of it, run: wakewheel ack --lane %s --upto %d\n", d.Lane, d.Head)
	return b.String()
}
