// Package mcpserver is wakewheel's Model Context Protocol adapter: the
// tools an agent sees when it runs `wakewheel mcp` over stdio.
//
// It owns the tool catalogue (names, typed input schemas, descriptions) and
// the translation of each tool call into one or more requests on the
// daemon's socket API. It holds no state: every call is forwarded through a
// Caller (an *api.Client in the binary), so every call is traffic the
// daemon sees, and two adapters started side by side behave as one.
//
// Tools:
//
//	status, deadlines, alerts             read the engine
//	remind                                push, extend or cancel reminder/<name>
//	post, wait, digest, ack, park, resume the wake doctrine's verbs on a lane
//	watch, unwatch, arm, disarm           roots
//	lease_acquire, lease_renew, lease_release
//
// Invariants:
//   - an agent can only create deadlines in the reminder namespace: the
//     remind tool sends a name, and the daemon prefixes it with "reminder/";
//     no tool takes a deadline key, a kind or a command line (watch never
//     forwards ingest or reconcile commands: those are the operator's);
//   - a daemon that is down, an unknown route, or arguments the schema or
//     the daemon reject come back as a tool result with IsError set and a
//     message that says what to do; a tool handler never panics the
//     process and never returns a protocol error for them;
//   - path segments taken from arguments (lane, lease and reminder names)
//     are checked by the key-segment rule of deadlines (CheckName) and
//     escaped, so an argument cannot reach another route.
//
// The wait tool is the fallback way of waking an agent (its description
// says to prefer the host's hooks or the lane's runner): every return is
// recorded as an agent turn of mode mcp_wait (POST /v1/lanes/{lane}/agent,
// best effort), and with the daemon down it waits out its timeout,
// retrying the socket every SocketRetry (1 s: a restarted daemon is found
// within a second, at one connect a second), then answers {woke: false}
// with daemon_down saying why.
//
// Imports: the api package (its client and request types), the root
// package (the alert and fire records its tools return), internal/clock,
// the pure obligations package (the locator type), the pure deadlines
// package (the name rule), the go-sdk's mcp and jsonschema packages, and
// the standard library. Never viper, zerolog or a store: configuration and
// logging belong to cmd/.
package mcpserver
