// Package api is the daemon's local HTTP+JSON interface on a unix socket,
// and the client the CLI (and later the MCP adapter) uses to reach it.
//
// The socket is created with mode 0600 inside a 0700 directory, and every
// connection's peer credentials are checked (SO_PEERCRED): only the
// daemon's own uid may talk to it. Requests are bounded in size and time.
// Every error is a JSON object {"error": {"code", "message"}} with an HTTP
// status that matches the code.
//
// Agents and CLI users may only create deadlines in the reminder namespace
// ("reminder/<name>", kind "reminder"): no request can touch the engine's
// own keys or make the daemon run a command the operator did not configure.
package api
