package main

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/rs/zerolog"
	"github.com/wakewheel/wakewheel/configs"
	ob "github.com/wakewheel/wakewheel/obligations"
	"github.com/wakewheel/wakewheel/roots"
)

// detectionFeed turns detections into machine digests: every detection
// that captured new paths in a root posts one digest-class obligation to
// each lane subscribed to that root (lanes.<name>.roots in the config
// file). Digests coalesce in the lane's digest ("N files changed in repo R
// since your last ack"), so a busy root never floods a lane with wakes.
//
// Fail-open: posting runs off the worker, and a failure is logged; the
// detection and its backlog are never affected.
type detectionFeed struct {
	post func(ctx context.Context, o ob.Obligation) error
	log  zerolog.Logger
	mu   sync.Mutex
	subs map[string][]string // root path -> lanes; guarded by mu
}

// maxListed bounds the paths a digest's body names.
const maxListed = 20

// newDetectionFeed is a feed subscribed as lanes say, posting with post.
func newDetectionFeed(lanes map[string]configs.Lane, log zerolog.Logger, post func(ctx context.Context, o ob.Obligation) error) *detectionFeed {
	f := &detectionFeed{post: post, log: log}
	f.subscribe(lanes)
	return f
}

// capability follows the lanes table of each valid config change.
func (f *detectionFeed) capability() capability {
	return capability{name: "digests", reload: func(_, cur configs.Config) { f.subscribe(cur.Lanes) }}
}

// subscribe sets the lanes of each root from the config.
func (f *detectionFeed) subscribe(lanes map[string]configs.Lane) {
	subs := map[string][]string{}
	for lane, l := range lanes {
		for _, root := range l.Roots {
			subs[root] = append(subs[root], lane)
		}
	}
	f.mu.Lock()
	f.subs = subs
	f.mu.Unlock()
}

// detected is roots.Options.OnDetected: it must not block the worker.
func (f *detectionFeed) detected(d roots.Detection) {
	f.mu.Lock()
	lanes := f.subs[d.Root]
	f.mu.Unlock()
	post, log := f.post, f.log
	if len(lanes) == 0 {
		return
	}
	for _, lane := range lanes {
		o := digestOf(lane, d)
		go func() {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			if err := post(ctx, o); err != nil {
				log.Warn().Err(err).Str("lane", lane).Str("root", d.Root).Msg("posting a detection digest failed")
			}
		}()
	}
}

// digestOf is the obligation a detection posts to lane. Its id is derived
// from the root and the detection's time, so a retried post is one copy.
func digestOf(lane string, d roots.Detection) ob.Obligation {
	var body strings.Builder
	fmt.Fprintf(&body, "%d files changed in %s", len(d.Paths), d.Root)
	if d.Head != "" {
		fmt.Fprintf(&body, " (HEAD %s)", short(d.Head))
	}
	body.WriteString(":")
	for i, p := range d.Paths {
		if i == maxListed {
			fmt.Fprintf(&body, "\n… and %d more", len(d.Paths)-maxListed)
			break
		}
		body.WriteString("\n" + p)
	}
	loc := ob.Locator{Repo: d.Root, SHA: d.Head}
	if len(d.Paths) > 0 {
		loc.File = d.Paths[0]
	}
	return ob.Obligation{
		Lane:    lane,
		ID:      fmt.Sprintf("detect:%s@%d", d.Root, d.At.UnixNano()),
		Class:   ob.ClassDigest,
		Body:    body.String(),
		Locator: loc,
		Key:     "detect:" + d.Root,
	}
}

func short(sha string) string {
	if len(sha) > 12 {
		return sha[:12]
	}
	return sha
}
