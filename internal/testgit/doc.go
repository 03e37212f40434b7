// Package testgit runs git for tests: with a fixed identity, no signing,
// main as the default branch, and none of the environment that would point
// git at another repository (the same environment the daemon gives git).
// Tests of detectors/, roots/ and cmd/ build their repositories with it.
package testgit
