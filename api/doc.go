// Package api is the daemon's local HTTP+JSON interface on a unix socket,
// and the client the CLI and the MCP adapter use to reach it.
//
// The socket is created with mode 0600 inside a private directory (created
// 0700; one another user owns or may write to is refused), and every
// connection's peer credentials are checked (SO_PEERCRED) on both ends: only
// the daemon's own uid may talk to it, and the client sends nothing to a
// socket that another uid serves (ErrUntrustedDaemon). Requests are bounded in size and time.
// Every error is a JSON object {"error": {"code", "message"}} with an HTTP
// status that matches the code. Handlers return errors; one table
// (errors.go) maps each sentinel to its HTTP status and code, and the
// client maps the code back to the CLI's exit status (ExitCode).
//
// Agents and CLI users may only create deadlines in the reminder namespace
// ("reminder/<name>", kind "reminder"): no request can touch the engine's
// own keys. Commands run only as registered for a root (POST /v1/roots, which
// the MCP adapter never sends them through) or in the config file.
//
// Routes (one file per capability):
//
//	routes.go       GET /v1/status, GET /v1/deadlines, GET /v1/alerts, GET /v1/fires,
//	                POST /v1/reminders, DELETE /v1/reminders/{name}
//	obligations.go  POST /v1/obligations (post.go), POST /v1/obligations/stream
//	                (poststream.go), GET|POST /v1/lanes, GET /v1/lanes/{lane}/wait,
//	                GET /v1/lanes/{lane}/digest, POST /v1/lanes/{lane}/ack|park|resume,
//	                GET /v1/ledger
//	roots.go        GET|POST|DELETE /v1/roots, POST /v1/roots/arm|disarm
//	leases.go       GET /v1/leases, POST /v1/leases/{name}/acquire|renew|release
//	probe.go        GET /v1/debug/timer?in=D (how late a plain runtime timer
//	                fires in the daemon now: the runtime and the OS, not the loop)
//
// Every request is traffic (Server.OnRequest) before it is served.
//
// The socket answers before the daemon has loaded its deadlines (front.go):
// a Front binds it, answers status with state "loading" and a percent, and
// every other request with code "loading" (503, exit 75, nothing applied),
// until Ready hands it to the Server. The client waits through a load by
// itself (up to LoadingWait).
//
// Nothing a request asks of the engine's loop costs more than O(kinds):
// status reads counts the wheel keeps as deadlines come and go. Listings
// never ask the loop at all: GET /v1/deadlines is a page (limit, after
// cursor, prefix) cut from the store's consistent snapshot, fires and the
// ledger are pages after a sequence number; all three, and status, take
// turns through a gate that leaves one core to the loop and lets readers
// spend at most ReaderShare of their place's time, past a short burst
// (listing.go), and a deadline page yields the processor as it is read and
// as it is written, into a pooled slice and a pooled buffer (pagejson.go).
//
// The post is the hot route: its request and answer, and a deadline page,
// are read and written without reflection (jsonscan.go, postjson.go,
// pagejson.go), byte for byte what encoding/json writes, which keeps the
// last word on anything the hand-written reader does not take. The client
// posts on post streams (poststream.go): connections switched by an HTTP
// Upgrade to length-prefixed frames that carry the same bodies and
// answers, without net/http's work per request; every other request is
// HTTP. Every goroutine posting through one Client shares one pipelined
// stream (wakewheel-post/2, clientpipe.go): posts written together in one
// write, read together by the daemon, and answered by id once durable,
// answers ready together written at once (postwriter.go,
// poststreampipe.go). The posts of one read are served together
// (postbatch.go): one worker, one call of the service (EachPoster, one
// lock and one unit of its grouped commit for all of them, each post
// still refused or answered as a duplicate on its own), one write of
// their answers; a fleet member's service (a Router) serves each on its
// own. A client's write that fails counts its post as sent unless nothing
// of it reached the socket: only Client.Post's retry by its id sends
// such a post again. A daemon older than that is posted
// to on wakewheel-post/1 streams, one post at a time each, which the
// daemon still serves. The daemon answers a post alone on its stream
// (one poster) and reads the next with one raw write and one raw read of
// the non-blocking socket, the write made from inside the connection's
// raw read so no read finds nothing first (rawtrip.go; the ordinary path
// for anything unusual), as the client of a /1 stream posts. The client's
// pipelined stream reads and writes by raw syscalls too (rawstream.go),
// so a client idle between commit cycles does not wake the runtime's
// monitor thread at each. The client writes every other request and reads its answer on
// the caller's goroutine over up to ClientConns pooled connections
// (clientconn.go), not through net/http's Transport.
//
// Imports: scheduler (the runner's single entry point), deadlines (the
// reminder's mutation and name rule), obligations, roots, lanerun and fleet
// (the types of their routes), the root package (alerts, fires),
// internal/filetrust (the socket directory), internal/jsonw (the JSON
// writers), zerolog and golang.org/x/sys/unix (peer credentials). Never viper, configs, cmd or a
// store (imports_test.go): the daemon hands the server its capabilities.
package api
