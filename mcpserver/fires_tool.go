package mcpserver

import (
	"context"
	"fmt"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/wakewheel/wakewheel"
)

// FiresInput bounds the list of recent fires.
type FiresInput struct {
	Limit int `json:"limit,omitempty" jsonschema:"how many of the newest fires (default 20)"`
}

// FiresOutput lists fires, oldest first.
type FiresOutput struct {
	Fires []wakewheel.Fire `json:"fires"`
}

func (t tools) addFireTools(s *mcp.Server) {
	addTool(s, &mcp.Tool{
		Name: "fires",
		Description: "The newest deadlines that fell due and ran, oldest first: key (reminder/<name> for your reminders), " +
			"when it was due, when it fired, and the outcome (done, retry, yield, conflict, failure).",
		Annotations: readOnly,
		InputSchema: inputSchema[FiresInput](newestProps()),
	}, t.fires)
}

func (t tools) fires(ctx context.Context, _ *mcp.CallToolRequest, in FiresInput) (*mcp.CallToolResult, FiresOutput, error) {
	fires, err := newest[wakewheel.Fire](ctx, t, "fires", "/v1/fires?last=%d", in.Limit)
	return nil, FiresOutput{Fires: fires}, err
}

// newestDefault is how many entries a log tool lists when the agent names
// no limit.
const newestDefault = 20

// newestProps bounds a log tool's limit argument.
func newestProps() map[string]prop {
	return map[string]prop{"limit": {min: num(0), max: num(10000)}}
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
