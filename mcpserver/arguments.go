package mcpserver

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The SDK checks a call's arguments against the tool's input schema before
// the tool runs, and reports a mismatch in the validator's words
// ("validating /properties/limit: minimum: -5/1 is less than 0.000000").
// plainArguments rewrites those into the words a caller can act on
// ("limit is -5: it must be at least 0"), naming the tool; anything it does
// not recognise passes through without the validator's prefixes.
func plainArguments(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		r, ok := res.(*mcp.CallToolResult)
		if !ok || !r.IsError {
			return res, err
		}
		tool := ""
		if call, ok := req.(*mcp.CallToolRequest); ok && call.Params != nil {
			tool = call.Params.Name
		}
		for _, c := range r.Content {
			if tc, ok := c.(*mcp.TextContent); ok {
				tc.Text = plainArgumentError(tool, tc.Text)
			}
		}
		return res, err
	}
}

const validatorPrefix = `validating "arguments": `

var argumentRules = []struct {
	re    *regexp.Regexp
	words func(m []string) string
}{
	{regexp.MustCompile(`^validating /properties/(\S+): minimum: (\S+?)(?:/1)? is less than (\S+)$`),
		func(m []string) string {
			return fmt.Sprintf("%s is %s: it must be at least %s", m[1], number(m[2]), number(m[3]))
		}},
	{regexp.MustCompile(`^validating /properties/(\S+): maximum: (\S+?)(?:/1)? is greater than (\S+)$`),
		func(m []string) string {
			return fmt.Sprintf("%s is %s: it must be at most %s", m[1], number(m[2]), number(m[3]))
		}},
	{regexp.MustCompile(`^validating /properties/(\S+): type: .* has type "(\w+)", want "(\w+)"$`),
		func(m []string) string { return fmt.Sprintf("%s must be of type %s, not %s", m[1], m[3], m[2]) }},
	{regexp.MustCompile(`^validating /properties/(\S+): maxLength: .*$`),
		func(m []string) string { return fmt.Sprintf("%s is too long", m[1]) }},
	{regexp.MustCompile(`^validating /properties/(\S+): enum: (.*) does not equal any of: \[(.*)\]$`),
		func(m []string) string { return fmt.Sprintf("%s is %s: it must be one of %s", m[1], m[2], m[3]) }},
	{regexp.MustCompile(`^unexpected additional properties \[(.*)\]$`),
		func(m []string) string {
			return fmt.Sprintf("unknown argument %s (see the tool's input schema for what it takes)", m[1])
		}},
	{regexp.MustCompile(`^required: missing properties: \[(.*)\]$`),
		func(m []string) string {
			return fmt.Sprintf("missing required argument %s", strings.ReplaceAll(m[1], `" "`, `", "`))
		}},
}

// plainArgumentError is one validator message in plain words.
func plainArgumentError(tool, text string) string {
	rest, ok := strings.CutPrefix(text, validatorPrefix)
	if !ok {
		return text
	}
	rest = strings.TrimPrefix(rest, "validating root: ")
	for _, rule := range argumentRules {
		if m := rule.re.FindStringSubmatch(rest); m != nil {
			rest = rule.words(m)
			break
		}
	}
	if tool != "" {
		return tool + ": " + rest
	}
	return rest
}

// number is a validator's number as written by a person: -5, not -5/1 or
// 0.000000.
func number(s string) string {
	if f, err := strconv.ParseFloat(strings.TrimSuffix(s, "/1"), 64); err == nil {
		return strconv.FormatFloat(f, 'f', -1, 64)
	}
	return s
}
