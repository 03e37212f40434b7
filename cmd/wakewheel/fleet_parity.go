package main

import (
	"context"
	"fmt"
	"net/http"

	"github.com/wakewheel/wakewheel/api"
	"github.com/wakewheel/wakewheel/configs"
	"github.com/wakewheel/wakewheel/fleet"
	ob "github.com/wakewheel/wakewheel/obligations"
)

// homeParity is the source-parity check of this host's daemon: every
// obligation the stream holds for it (by the daemon's own name in the
// fleet, whatever this shell's config says) against entries, its ledger.
// `fleet parity` prints it; `ledger report` judges it with the rest of
// the safety vector.
func homeParity(ctx context.Context, cfg configs.Config, client *api.Client, entries []ob.Entry) (fleet.Parity, error) {
	var ms fleet.MemberStatus
	if err := client.Do(ctx, http.MethodGet, "/v1/fleet", nil, &ms); err != nil {
		return fleet.Parity{}, fmt.Errorf("this host's daemon: %w", err)
	}
	posted := map[string]map[string]bool{}
	for _, e := range entries {
		if e.Kind == ob.EntryPost {
			if posted[e.Lane] == nil {
				posted[e.Lane] = map[string]bool{}
			}
			posted[e.Lane][e.ID] = true
		}
	}
	conn, err := dialFleet(cfg, "parity")
	if err != nil {
		return fleet.Parity{}, err
	}
	defer conn.Close()
	return fleet.CheckParity(ctx, conn, ms.Host, posted)
}
