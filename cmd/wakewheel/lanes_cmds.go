package main

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"
	"github.com/wakewheel/wakewheel/api"
)

// The lane verbs' hints. The daemon's messages name no CLI flag (an MCP
// caller reads the same messages); what a CLI user can do about a lane
// error is added here, in the CLI's terms.

// laneHint adds to err, an answer of the daemon about lane, what the CLI
// user can do next. verb is the command that failed. The error stays an
// *api.Error underneath, so its exit status is unchanged.
func laneHint(verb, lane string, err error) error {
	var ae *api.Error
	if !errors.As(err, &ae) {
		return err
	}
	var hint string
	switch ae.Err.Code {
	case "unknown_lane":
		switch verb {
		case "post":
			hint = fmt.Sprintf("if the name is right, open it with `wakewheel lanes --open %s`, or post with --create", lane)
		case "wait":
			hint = fmt.Sprintf("if the name is right, open it as you wait: `wakewheel wait --lane %s --open`", lane)
		default:
			hint = "`wakewheel lanes` lists the lanes that exist"
		}
	case "lane_busy":
		hint = fmt.Sprintf("ack its work first, or discard it with `wakewheel lanes --close %s --force`", lane)
	case "too_many_lanes":
		hint = "`wakewheel lanes` lists them; close one with `wakewheel lanes --close LANE`"
	}
	if hint == "" {
		return err
	}
	return fmt.Errorf("%w; %s", err, hint)
}

// closeLane runs `lanes --close LANE [--force]`.
func closeLane(cmd *cobra.Command, c *api.Client, lane string, force bool) (any, string, error) {
	res, err := c.CloseLane(cmd.Context(), lane, force)
	if err != nil {
		return nil, "", laneHint("lanes", lane, err)
	}
	text := fmt.Sprintf("closed %s (head %d)\n", lane, res.Closed.Head)
	if res.Discarded > 0 {
		text = fmt.Sprintf("closed %s (head %d); discarded %d unconsumed\n", lane, res.Closed.Head, res.Discarded)
	}
	return res, text, nil
}
