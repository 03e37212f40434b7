// Package netrule is the one home of the rules about what crosses a
// network: which hosts are this machine only (loopback), and how a
// daemon may reach its fleet's broker (beyond loopback only with TLS and
// credentials). configs checks the fleet.* and metrics.* keys with it,
// fleet checks the options it dials with; both say the same thing.
//
// Invariants: the rule is pure (it parses strings, resolves no name and
// opens nothing); an error says what is wrong and which key fixes it.
//
// Imports: the standard library only.
package netrule
