package liveness

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"
)

// TestBlindFeedHoldsAbsences replays, on a fake clock, a bucket leader
// election that blinds the feed for 8 s: live hosts a and c are silent
// through it and are not alarmed; b, dead just before it, is alarmed
// period + grace + the blind spell after its last beacon, not sooner and
// not later; an HTTP host is not held (its beacons do not come through
// the feed), and an absence due before the spell began still alarms.
func TestBlindFeedHoldsAbsences(t *testing.T) {
	const period, grace = time.Second, 2 * time.Second
	t0 := time.Date(2026, 1, 5, 0, 0, 0, 0, time.UTC)
	eng, _ := memEngine(t, t0)
	m, err := NewMonitor(MonitorOptions{Period: period, Grace: grace, Logger: zerolog.Nop()})
	if err != nil {
		t.Fatal(err)
	}
	m.Register(eng)
	beat := func(at time.Time, via string, hosts ...string) {
		step(eng, at)
		if via == ViaFeed { // the feed's probe came back just before
			m.raiseAll(m.seeing(eng, at, at))
		}
		for _, h := range hosts {
			if _, err := m.seen(eng, at, h, via, "success", ""); err != nil {
				t.Fatal(err)
			}
		}
	}
	at := func(d time.Duration) time.Time { return t0.Add(d) }
	for s := range 10 {
		beat(at(time.Duration(s)*time.Second), ViaFeed, "a", "b", "c")
		beat(at(time.Duration(s)*time.Second), ViaHTTP, "web")
	}
	// b dies after its beacon at 9 s; the web host's last ping is at 9 s too.
	beat(at(10*time.Second), ViaFeed, "a", "c")
	// The feed's last confirmed sight is 10.5 s; it notices at 11 s.
	step(eng, at(11*time.Second))
	m.blind(at(11*time.Second), at(10500*time.Millisecond))
	step(eng, at(18500*time.Millisecond))
	spell, err := m.sighted(eng, at(18500*time.Millisecond))
	if err != nil || spell != 8*time.Second {
		t.Fatalf("spell %s %v, want 8s", spell, err)
	}
	for s := 19; s < 40; s++ {
		beat(at(time.Duration(s)*time.Second), ViaFeed, "a", "c")
	}
	var got []string
	for _, a := range m.Alarms() {
		got = append(got, a.Host+" "+a.Reason+" "+a.At.Sub(t0).String())
	}
	// web: last ping 9 s, absent at 12 s (not held); b: last beacon 9 s,
	// absent at 9 + 3 + 8 = 20 s.
	want := []string{"web absent 12s", "b absent 20s"}
	if strings.Join(got, "; ") != strings.Join(want, "; ") {
		t.Fatalf("alarms %q, want %q", got, want)
	}
	if st := m.Sight(); st.Blind || st.Episodes != 1 || st.Total != 8 {
		t.Fatalf("sight %+v", st)
	}

	// Without a blind spell declared, an absence waits for the feed to
	// confirm its sight after the due time: c, due at 42 s, is held while
	// the last confirmation is 41.9 s, and alarmed when the probe of 42.2 s
	// comes back; a, due then too, beacons at 42.1 s and is not alarmed.
	m.raiseAll(m.seeing(eng, at(41900*time.Millisecond), at(41900*time.Millisecond)))
	step(eng, at(42050*time.Millisecond))
	if n := len(m.Alarms()); n != 2 {
		t.Fatalf("alarms before the feed confirmed its sight: %+v", m.Alarms())
	}
	if _, err := m.seen(eng, at(42100*time.Millisecond), "a", ViaFeed, "success", ""); err != nil {
		t.Fatal(err)
	}
	m.raiseAll(m.seeing(eng, at(42300*time.Millisecond), at(42200*time.Millisecond)))
	as := m.Alarms()
	if len(as) != 3 || as[2].Host != "c" || !as[2].At.Equal(at(42300*time.Millisecond)) {
		t.Fatalf("alarms %+v, want c absent at 42.3s", as)
	}
}

// TestASlowSinkDelaysNoAlarm: a webhook that hangs holds neither the
// monitor nor the alarm command; alarms beyond the webhook's queue are
// dropped and counted, never waited for.
func TestASlowSinkDelaysNoAlarm(t *testing.T) {
	release := make(chan struct{})
	hook := newHangingServer(t, release)
	log := filepath.Join(t.TempDir(), "alarms")
	m, err := NewMonitor(MonitorOptions{Period: time.Minute, Grace: time.Minute, Webhook: hook, SinkQueue: 2,
		AlarmCmd: `echo "$WAKEWHEEL_ALARM_HOST" >> ` + log, Timeout: time.Minute, Logger: zerolog.Nop()})
	if err != nil {
		t.Fatal(err)
	}
	sink := func(name string) SinkStatus {
		for _, s := range m.Sinks() {
			if s.Name == name {
				return s
			}
		}
		t.Fatalf("no sink %s in %+v", name, m.Sinks())
		return SinkStatus{}
	}
	delivered := func() int {
		b, _ := os.ReadFile(log)
		return strings.Count(string(b), "\n")
	}
	var slowest time.Duration
	for i, h := range []string{"h1", "h2", "h3", "h4", "h5"} {
		start := time.Now()
		m.raise(Alarm{Host: h, Reason: "absent", At: time.Now()})
		slowest = max(slowest, time.Since(start))
		// Each alarm reaches the command while the webhook still hangs.
		waitFor(t, "the command's alarm "+h, func() bool { return delivered() == i+1 && sink("command").Sent == uint64(i+1) })
		if i == 0 {
			waitFor(t, "the webhook holding the first alarm", func() bool { return sink("webhook").Queued == 0 })
		}
	}
	// One alarm in the hanging call, two queued, two dropped.
	if w := sink("webhook"); w.Dropped != 2 || w.Sent != 0 || w.Queued != 2 {
		t.Fatalf("webhook sink %+v, want 2 queued, 2 dropped and none sent while it hangs", w)
	}
	if c := sink("command"); c.Sent != 5 || c.Dropped != 0 {
		t.Fatalf("command sink %+v, want 5 sent", c)
	}
	if n := len(m.Alarms()); n != 5 {
		t.Fatalf("%d alarms recorded, want 5", n)
	}
	close(release)
	m.Wait()
	if w := sink("webhook"); w.Sent != 3 {
		t.Fatalf("webhook after release %+v, want the 3 it held", w)
	}
	t.Logf("5 alarms with the webhook hanging: the slowest raise returned in %s, the command delivered all 5 meanwhile, the webhook dropped 2", slowest)
}

// TestBlindSpellsOverADay replays, on a fake clock, a day of three feed
// hosts beaconing every 0.9–1.4 s (period 1 s, grace 2 s: never 3 s of
// observed silence) while the feed goes blind for 1–15 s every few
// minutes (beacons sent then are lost) and confirms its sight every
// 250 ms otherwise: 0 alarms. Then b dies: it is alarmed once, within
// period + grace + the blind time since its last beacon + one probe.
func TestBlindSpellsOverADay(t *testing.T) {
	const period, grace, probe = time.Second, 2 * time.Second, 250 * time.Millisecond
	rng, t0, eng, m := seededMonitor(t, 2, period, grace)
	hosts := []string{"a", "b", "c"}
	next := map[string]time.Time{}
	for _, h := range hosts {
		next[h] = t0.Add(time.Duration(rng.Int64N(int64(period))))
	}
	end := t0.Add(24 * time.Hour)
	dies := end.Add(-time.Minute)
	spellAt := t0.Add(time.Duration(60+rng.IntN(240)) * time.Second)
	var spellEnd time.Time
	nextProbe, lastProbe := t0, t0
	var lastB time.Time
	type spell struct {
		end time.Time
		d   time.Duration
	}
	var ended []spell
	spells, lost := 0, 0
	for now := t0; now.Before(end.Add(time.Minute)); {
		// the next event: a beacon, a probe, a spell's start or end
		at := nextProbe
		for _, h := range hosts {
			if next[h].Before(at) {
				at = next[h]
			}
		}
		blind := !spellEnd.IsZero()
		if !blind && spellAt.Before(at) {
			at = spellAt
		}
		if blind && spellEnd.Before(at) {
			at = spellEnd
		}
		now = at
		step(eng, now)
		switch {
		case !blind && now.Equal(spellAt):
			m.blind(now, lastProbe) // since the last probe that came back
			spellEnd = now.Add(time.Second + time.Duration(rng.Int64N(int64(14*time.Second))))
			spells++
		case blind && now.Equal(spellEnd):
			d, err := m.sighted(eng, now)
			if err != nil {
				t.Fatal(err)
			}
			ended = append(ended, spell{now, d})
			spellEnd = time.Time{}
			spellAt = now.Add(time.Duration(60+rng.IntN(240)) * time.Second)
		case now.Equal(nextProbe):
			if !blind {
				m.raiseAll(m.seeing(eng, now, now))
				lastProbe = now
			}
			nextProbe = now.Add(probe)
		default:
			for _, h := range hosts {
				if !next[h].Equal(now) {
					continue
				}
				next[h] = now.Add(900*time.Millisecond + time.Duration(rng.Int64N(int64(500*time.Millisecond))))
				if h == "b" && now.After(dies) {
					next[h] = end.Add(48 * time.Hour)
					continue
				}
				if blind {
					lost++
					continue
				}
				if _, err := m.seen(eng, now, h, ViaFeed, "success", ""); err != nil {
					t.Fatal(err)
				}
				if h == "b" {
					lastB = now
				}
			}
		}
	}
	alarms := m.Alarms()
	if len(alarms) != 1 || alarms[0].Host != "b" || alarms[0].Reason != "absent" {
		t.Fatalf("%d blind spells, %d beacons lost in them: alarms %+v; want b absent alone", spells, lost, alarms)
	}
	// The blind time that counts: the spells that ended after b's last
	// beacon and before its alarm.
	var blindSinceLastB time.Duration
	for _, sp := range ended {
		if sp.end.After(lastB) && !sp.end.After(alarms[0].At) {
			blindSinceLastB += sp.d
		}
	}
	late := alarms[0].At.Sub(lastB.Add(period + grace + blindSinceLastB))
	if late < 0 || late > probe {
		t.Fatalf("b alarmed %s after its last beacon; want period + grace + %s blind, + at most one probe", alarms[0].At.Sub(lastB), blindSinceLastB)
	}
	st := m.Sight()
	t.Logf("a day, %d blind spells (%.0f s blind), %d beacons lost in them: 0 false alarms; b alarmed %s after its last beacon (+%s over period + grace + its blind time)",
		spells, st.Total, lost, alarms[0].At.Sub(lastB), late)
}
