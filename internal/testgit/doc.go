// Package testgit runs git for tests: with a fixed identity, no signing,
// main as the default branch, and none of the environment that would point
// git at another repository (the same environment the daemon gives git).
// Tests of detectors/, roots/ and cmd/ build their repositories with it.
//
// Imports: internal/gitenv (the daemon's git environment), os/exec and
// the standard library; only test files import testgit.
package testgit
