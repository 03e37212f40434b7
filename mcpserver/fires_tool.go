package mcpserver

import (
	"context"
	"fmt"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/wakewheel/wakewheel"
)

// NewestInput bounds the list a log tool (fires, alerts) answers; its
// description names what the tool lists (newestProps).
type NewestInput struct {
	Limit int `json:"limit,omitempty"`
}

// FiresOutput lists fires, oldest first.
type FiresOutput struct {
	Fires []wakewheel.Fire `json:"fires"`
}

func (t tools) addFireTools(s *mcp.Server) {
	add(s, "fires", "The newest deadlines that fell due and ran, oldest first: key (reminder/<name> for your reminders), "+
		"when it was due, when it fired, and the outcome (done, retry, yield, conflict, failure).",
		readOnly, newestProps("fires"), t.fires)
}

func (t tools) fires(ctx context.Context, in NewestInput) (FiresOutput, error) {
	fires, err := newest[wakewheel.Fire](ctx, t, "fires", "/v1/fires?last=%d", in.Limit)
	return FiresOutput{Fires: fires}, err
}

// newestDefault is how many entries a log tool lists when the agent names
// no limit.
const newestDefault = 20

// newestProps bounds a log tool's limit argument and says what it counts.
func newestProps(what string) map[string]prop {
	return map[string]prop{"limit": {min: num(0), max: num(10000),
		desc: fmt.Sprintf("how many of the newest %s (default %d)", what, newestDefault)}}
}

// newest reads the newest limit entries of a daemon log (route takes the
// count), oldest first: the fires and alerts tools. The list is never
// null, so an agent always gets an array.
func newest[T any](ctx context.Context, t tools, tool, route string, limit int) ([]T, error) {
	if limit <= 0 {
		limit = newestDefault
	}
	var list []T
	err := t.call(ctx, tool, http.MethodGet, fmt.Sprintf(route, limit), nil, &list)
	if list == nil {
		list = []T{}
	}
	return list, err
}
