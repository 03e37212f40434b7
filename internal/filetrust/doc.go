// Package filetrust decides whether a file or directory may be trusted by
// this process, by the rules ssh and tmux apply to their sockets and
// configuration: what the daemon reads or listens in must be its user's
// alone.
//
// Rules:
//   - a private directory (the socket's) is owned by this process's uid and
//     has no group or other write bit; PrivateDir creates a missing one
//     with mode 0700;
//   - a trusted file (the config file, a command it names) is owned by this
//     uid or by root, has no group or other write bit, and lives in a
//     directory that no other user can write to (owned by this uid or root
//     with no group/other write, or sticky like /tmp).
//
// Every refusal wraps ErrUntrusted and says what is wrong and the command
// that fixes it. The package reads file metadata and nothing else: no
// logging, no viper, no network. It imports only the standard library.
package filetrust
