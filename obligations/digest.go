package obligations

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// Digest is the cumulative state of a lane since its CONSUMED cursor:
// enough for an agent to orient itself (who, lane, board head, cursors) and
// to decide the no-op case without a further call (Noop).
type Digest struct {
	Who      string    `json:"who"`
	Lane     string    `json:"lane"`
	WakeID   string    `json:"wake_id,omitempty"`
	At       time.Time `json:"at"`
	Head     uint64    `json:"head"`
	Received uint64    `json:"received"`
	Consumed uint64    `json:"consumed"`
	// Noop is true when nothing is unconsumed: the agent can go back to
	// sleep without reading further.
	Noop bool `json:"noop"`
	// Redelivery is true when this wake id had already been delivered.
	Redelivery bool `json:"redelivery,omitempty"`
	// Counts is the number of unconsumed obligations per class.
	Counts Counts `json:"counts"`
	// Messages is every unconsumed human and peer obligation, in sequence
	// order, one entry each with its full body: never merged.
	Messages []Obligation `json:"messages"`
	// Machine coalesces every unconsumed digest-class obligation into one
	// cumulative entry; nil when there is none.
	Machine *MachineDigest `json:"machine,omitempty"`
	// Alerts coalesces unconsumed alerts by Key, in order of first arrival.
	Alerts []AlertGroup `json:"alerts,omitempty"`
	// Since is the checkpoint a Resume started from.
	Since *Checkpoint `json:"since,omitempty"`
}

// MachineDigest is the union of unconsumed machine digests.
type MachineDigest struct {
	Count    int         `json:"count"`
	FirstSeq uint64      `json:"first_seq"`
	LastSeq  uint64      `json:"last_seq"`
	First    time.Time   `json:"first"`
	Last     time.Time   `json:"last"`
	Repos    []RepoState `json:"repos"`
	Latest   string      `json:"latest"` // body of the most recent one
}

// RepoState is what the coalesced machine digests say about one repository:
// its latest SHA (by sequence) and the union of files and issues named.
type RepoState struct {
	Repo   string   `json:"repo"`
	SHA    string   `json:"sha,omitempty"`
	Files  []string `json:"files,omitempty"`
	Issues []string `json:"issues,omitempty"`
}

// AlertGroup is the unconsumed alerts sharing one Key (an alert without a
// Key is keyed by its id, so it stands alone).
type AlertGroup struct {
	Key      string     `json:"key"`
	Count    int        `json:"count"`
	FirstSeq uint64     `json:"first_seq"`
	Latest   Obligation `json:"latest"`
}

// Digest returns the lane's digest without delivering it (RECEIVED does
// not move). who names the consumer; empty means the lane.
func (s *State) Digest(name, who string, now time.Time) (Digest, error) {
	l, err := s.lane(name)
	if err != nil {
		return Digest{}, err
	}
	return s.digest(l, who, now), nil
}

func (s *State) digest(l *lane, who string, now time.Time) Digest {
	if who == "" {
		who = l.name
	}
	d := Digest{
		Who: who, Lane: l.name, WakeID: l.wakeID(), At: now, Head: l.head(),
		Received: l.received, Consumed: l.consumed, Noop: l.pending() == 0,
		Counts: countsOf(l.unconsumed), Messages: []Obligation{},
	}
	repos := map[string]*RepoState{}
	alerts := map[string]int{} // key -> index in d.Alerts
	for seq := l.consumed + 1; seq <= l.head(); seq++ {
		o := *l.ob(seq)
		switch o.Class {
		case ClassHuman, ClassPeer:
			d.Messages = append(d.Messages, o)
		case ClassDigest:
			addMachine(&d, repos, o)
		case ClassAlert:
			key := o.Key
			if key == "" {
				key = o.ID
			}
			i, ok := alerts[key]
			if !ok {
				i = len(d.Alerts)
				alerts[key] = i
				d.Alerts = append(d.Alerts, AlertGroup{Key: key, FirstSeq: seq})
			}
			d.Alerts[i].Count++
			d.Alerts[i].Latest = o
		}
	}
	if d.Machine != nil {
		for _, r := range repos {
			slices.Sort(r.Files)
			slices.Sort(r.Issues)
			d.Machine.Repos = append(d.Machine.Repos, *r)
		}
		slices.SortFunc(d.Machine.Repos, func(a, b RepoState) int { return strings.Compare(a.Repo, b.Repo) })
	}
	return d
}

func addMachine(d *Digest, repos map[string]*RepoState, o Obligation) {
	m := d.Machine
	if m == nil {
		m = &MachineDigest{FirstSeq: o.Seq, First: o.Posted}
		d.Machine = m
	}
	m.Count++
	m.LastSeq, m.Last, m.Latest = o.Seq, o.Posted, o.Body
	r := repos[o.Locator.Repo]
	if r == nil {
		r = &RepoState{Repo: o.Locator.Repo}
		repos[o.Locator.Repo] = r
	}
	if o.Locator.SHA != "" {
		r.SHA = o.Locator.SHA
	}
	if f := o.Locator.File; f != "" && !slices.Contains(r.Files, f) {
		r.Files = append(r.Files, f)
	}
	if i := o.Locator.Issue; i != "" && !slices.Contains(r.Issues, i) {
		r.Issues = append(r.Issues, i)
	}
}

// Text renders d for a terminal or an agent's context: stable (same digest,
// same text) and readable, bodies in full, indented two spaces.
func (d Digest) Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "digest for %s, lane %s", d.Who, d.Lane)
	if d.WakeID != "" {
		fmt.Fprintf(&b, ", wake %s", d.WakeID)
	}
	if d.Redelivery {
		b.WriteString(" (redelivered)")
	}
	fmt.Fprintf(&b, ", at %s\n", stamp(d.At))
	fmt.Fprintf(&b, "board: head %d, received %d, consumed %d\n", d.Head, d.Received, d.Consumed)
	fmt.Fprintf(&b, "unconsumed: %d (human %d, peer %d, digest %d, alert %d)\n",
		d.Counts.Total(), d.Counts.Human, d.Counts.Peer, d.Counts.Digest, d.Counts.Alert)
	if d.Since != nil {
		fmt.Fprintf(&b, "since park at %s: consumed was %d, head was %d; %d new since\n",
			stamp(d.Since.At), d.Since.Consumed, d.Since.Head, d.Head-d.Since.Head)
	}
	if d.Noop {
		b.WriteString("verdict: noop (nothing unconsumed)\n")
		return b.String()
	}
	if d.Received >= d.Head {
		fmt.Fprintf(&b, "verdict: work (ack up to %d when done)\n", d.Head)
	} else {
		fmt.Fprintf(&b, "verdict: work (not delivered yet: received %d of head %d)\n", d.Received, d.Head)
	}
	for _, o := range d.Messages {
		fmt.Fprintf(&b, "%s #%d id=%s posted %s", o.Class, o.Seq, o.ID, stamp(o.Posted))
		if !o.Locator.IsZero() {
			fmt.Fprintf(&b, " [%s]", describeLocator(o.Locator))
		}
		b.WriteString("\n")
		indent(&b, "  ", o.Body)
	}
	if m := d.Machine; m != nil {
		fmt.Fprintf(&b, "digest x%d #%d..#%d, %s .. %s\n", m.Count, m.FirstSeq, m.LastSeq, stamp(m.First), stamp(m.Last))
		for _, r := range m.Repos {
			fmt.Fprintf(&b, "  repo %s", r.Repo)
			if r.SHA != "" {
				fmt.Fprintf(&b, " at %s", r.SHA)
			}
			if len(r.Issues) > 0 {
				fmt.Fprintf(&b, "; issues %s", strings.Join(r.Issues, ", "))
			}
			if len(r.Files) > 0 {
				fmt.Fprintf(&b, "; files %s", strings.Join(r.Files, ", "))
			}
			b.WriteString("\n")
		}
		b.WriteString("  latest:\n")
		indent(&b, "    ", m.Latest)
	}
	for _, a := range d.Alerts {
		fmt.Fprintf(&b, "alert %s x%d, first #%d, latest #%d posted %s\n",
			a.Key, a.Count, a.FirstSeq, a.Latest.Seq, stamp(a.Latest.Posted))
		indent(&b, "  ", a.Latest.Body)
	}
	return b.String()
}

func indent(b *strings.Builder, prefix, body string) {
	for line := range strings.Lines(body) {
		b.WriteString(prefix)
		b.WriteString(strings.TrimRight(line, "\n"))
		b.WriteString("\n")
	}
}

// stamp formats a time for text output: UTC, RFC 3339, seconds.
func stamp(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.UTC().Format(time.RFC3339)
}
