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
		InputSchema: inputSchema[FiresInput](map[string]prop{"limit": {min: num(0), max: num(10000)}}),
	}, t.fires)
}

func (t tools) fires(ctx context.Context, _ *mcp.CallToolRequest, in FiresInput) (*mcp.CallToolResult, FiresOutput, error) {
	limit := in.Limit
	if limit == 0 {
		limit = 20
	}
	out := FiresOutput{Fires: []wakewheel.Fire{}}
	err := t.call(ctx, "fires", http.MethodGet, fmt.Sprintf("/v1/fires?last=%d", limit), nil, &out.Fires)
	if out.Fires == nil {
		out.Fires = []wakewheel.Fire{}
	}
	return nil, out, err
}
